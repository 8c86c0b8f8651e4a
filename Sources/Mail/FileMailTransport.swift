import Foundation
import Logging

/// Development delivery, used when no SMTP_HOST is set (scripts/serve, the embedded
/// default): each mail is written to `<DATA_DIR>/mail/<time>-<id>.eml` (0600), openable in
/// any mail program. Only the file's path is logged, never the message: logs are read and
/// shipped by more people than the mailbox, and a code or link there would let any of them
/// take over the account it was sent to. Never used when SMTP is configured.
public struct FileMailTransport: MailTransport {
    public let directory: String
    let logger: Logger

    public init(directory: String, logger: Logger) throws(MailError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .invalidSettings("cannot create the development mail directory \(directory): \(error.localizedDescription)")
        }
        self.directory = directory
        self.logger = logger
    }

    public func deliver(_ message: String, from sender: String, to recipient: String,
                        cancellation: MailCancellation) throws(MailDeliveryError) {
        let stamp = Int64(Date().timeIntervalSince1970 * 1000)
        let path = (directory as NSString).appendingPathComponent("\(stamp)-\(UUID().uuidString.lowercased()).eml")
        // 0600: the file may hold a sign-in code.
        guard FileManager.default.createFile(atPath: path, contents: Data(message.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw MailDeliveryError("cannot write \(path)")
        }
        logger.info("mail not sent: no SMTP_HOST configured; written to a file", metadata: ["file": .string(path)])
    }
}
