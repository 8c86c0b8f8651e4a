/// The one error of the backup layer (`backup`, `restore`, the daily backups): a sentence for
/// the operator, printed as is by the commands and logged by the server.
package struct BackupError: Error, CustomStringConvertible {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
