import ArgumentParser

@main
struct Dispatchd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dispatchd",
        abstract: "The Dispatch server: a self-hosted REST and sync backend.",
        subcommands: [ServeCommand.self, MigrateCommand.self, CreateAdminCommand.self, SeedDemoCommand.self,
                      ExplainQueriesCommand.self, BackupCommand.self, RestoreCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
