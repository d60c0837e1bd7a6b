/**
 * `vitrine publish <provider>`: a command group that plugins fill through `publish_subcommand`.
 * `addCommonPublishOptions()` gives every provider the same common options.
 */
import type { Command } from "commander";
import type { PluginRegistry } from "../plugins/registry.ts";
import { collect } from "./argv.ts";

/** Adds the spec's common publish options to a provider's command. */
function addCommonPublishOptions(command: Command): Command {
  return command
    .argument("<files...>", "database files to publish")
    .option("-m, --metadata <file>", "metadata file")
    .option("--extra-options <options>", "extra options passed to `vitrine serve`")
    .option("--branch <branch>", "build the image's Vitrine from this git branch of the checkout")
    .option("--template-dir <dir>", "templates to include")
    .option("--plugins-dir <dir>", "plugins to include")
    .option("--static <mount:dir>", "static directories to include", collect, [])
    .option("--install <plugin>", "plugin specifiers to install", collect, [])
    .option(
      "--plugin-secret <plugin name value>",
      "a secret for a plugin's configuration: PLUGIN NAME VALUE (repeatable)",
      collect,
      [],
    )
    .option("--version-note <note>", "version note for /-/versions")
    .option("--secret <secret>", "secret for signed cookies")
    .option("--title <title>", "title for metadata")
    .option("--license <license>", "license label")
    .option("--license_url <url>", "license URL")
    .option("--source <source>", "source label")
    .option("--source_url <url>", "source URL")
    .option("--about <about>", "about label")
    .option("--about_url <url>", "about URL");
}

/** True when `command` already has the common options (a provider may add them itself). */
function hasCommonPublishOptions(command: Command): boolean {
  return command.options.some((option) => option.long === "--metadata");
}

/**
 * Adds the `publish` group and lets plugins add providers to it. Every provider a
 * `publish_subcommand` hook adds gets the common options (SPEC "Common options passed"), so its
 * action receives `files` first and `{ metadata, extraOptions, branch, templateDir, pluginsDir,
 * static, install, pluginSecret, versionNote, secret, title, license, license_url, source,
 * source_url, about, about_url, ...its own }` after its own arguments.
 */
export async function addPublishCommand(program: Command, registry: PluginRegistry): Promise<void> {
  const publish = program.command("publish")
    .description("Publish databases to a hosting provider (providers come from plugins)")
    .configureHelp({ sortSubcommands: true });
  await registry.call("publish_subcommand", { publish });
  for (const provider of publish.commands) {
    if (!hasCommonPublishOptions(provider)) addCommonPublishOptions(provider);
  }
  if (publish.commands.length === 0) {
    publish.addHelpText(
      "after",
      "\nNo publish providers are installed. A plugin adds one with the publish_subcommand hook.",
    );
  }
}
