/// The one error of the backup layer (`backup`, `restore`, the daily backups): a sentence for
/// the operator, printed as is by the commands and logged by the server.
struct BackupError: Error, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}
