/// The console's navigation, in order: one entry per top-level page. A new page family adds
/// its entry here and sets `ConsolePage.section` to its path.
package enum ConsoleNav {
    package struct Item: Sendable {
        package var label: String
        package var path: String
    }

    package static let items: [Item] = [
        Item(label: "Overview", path: "/console"),
        Item(label: "People", path: "/console/people"),
        Item(label: "Work", path: "/console/work"),
        Item(label: "Explain access", path: "/console/access"),
        Item(label: "Sync health", path: "/console/sync"),
        Item(label: "Integrations", path: "/console/integrations"),
        Item(label: "Backups", path: "/console/backups"),
        Item(label: "Mail", path: "/console/mail"),
        Item(label: "Server", path: "/console/server"),
        Item(label: "Audit log", path: "/console/audit"),
    ]

    /// Where `/console` and a fresh sign-in land.
    package static let home = "/console"
}
