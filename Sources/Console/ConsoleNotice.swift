/// Short confirmations shown after an action redirects back (`?done=code`). Only these fixed
/// texts are ever shown, so a crafted link cannot put words on a console page.
package enum ConsoleNotice {
    static let texts: [String: String] = [
        "created": "Person created.",
        "invited": "Invitation e-mailed: they sign in from the mail and choose a password.",
        "role": "Role changed.",
        "deactivated": "Person deactivated; their sessions were signed out.",
        "reactivated": "Person reactivated.",
        "session-revoked": "Session revoked.",
        "key-revoked": "API key revoked.",
        "renamed": "Name changed.",
        "released": "Claim released.",
        "reassigned": "Claim handed over.",
        "status": "Status changed.",
        "deleted": "Deleted.",
        "restored": "Restored.",
        "offboarded": "Off-boarding done: claims and listings handed over.",
        "webhook-enabled": "Webhook enabled: deliveries resume.",
        "webhook-disabled": "Webhook disabled: new events are not queued for it.",
        "replayed": "Delivery queued again, with the same webhook-id.",
        "slack-resumed": "Slack integration resumed: waiting posts go out.",
        "slack-linked": "Slack user linked.",
        "slack-unlinked": "Slack user unlinked.",
        "backup-started": "Backup started: this page refreshes until it ends.",
        "verify-started": "Verify started: the backup is restored into a scratch database and compared; this page refreshes until it ends.",
        "test-mail": "Test mail queued to your address: its delivery shows below.",
        "mail-resent": "A new mail was queued with a fresh link and code.",
    ]

    /// A notice code's text; nil for codes nobody registered.
    package static func text(_ code: String?) -> String? {
        code.flatMap { texts[$0] }
    }
}
