import assert from "node:assert/strict";
import { mentionsIdentifier } from "../../src/auth/sql_access.ts";

Deno.test("mentionsIdentifier finds whole identifiers in any quoting and case", () => {
  for (
    const sql of ["select * from orders", 'select * from "Orders"', "from [orders]", "x.orders"]
  ) {
    assert.equal(mentionsIdentifier(sql, "orders"), true, sql);
  }
  for (
    const sql of ["select * from order_items", "select orders_total", "select $orders", "ordersé"]
  ) {
    assert.equal(mentionsIdentifier(sql, "orders"), false, sql);
  }
  assert.equal(mentionsIdentifier("select * from [my table]", "my table"), true);
  assert.equal(mentionsIdentifier("select * from a.b", "a.b"), true);
});
