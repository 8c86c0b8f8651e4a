import Credentials

extension SecretSeal {
    /// Seals `mail_outbox.message` at rest: a queued mail may carry a sign-in code and link,
    /// and while the relay is down it waits in the table, where a backup would show it.
    public static func mailOutbox(serverSecret: String) -> SecretSeal {
        SecretSeal(serverSecret: serverSecret, label: "dispatch mail outbox v1")
    }

    /// A stored message: opened when sealed; a message queued before sealing existed is
    /// returned as it is.
    func openMessage(_ stored: String) -> String? {
        stored.hasPrefix(Self.prefix) ? open(stored) : stored
    }
}
