import Domain
import HTTP1
import HTTPServer
import Logging

extension APIErrorRenderer {
    /// The status and a person-readable message of `error`, decided exactly as for `/v1`
    /// (`contractError`: database errors mapped and logged, anything unknown a logged 500), for
    /// the console, which shows errors as pages instead of JSON.
    package static func statusAndMessage(for error: any Error, logger: Logger) -> (status: HTTPStatus, message: String) {
        let rendered = contractError(for: error, logger: logger)
        var message = rendered.message
        if let domain = error as? DomainError, !domain.fields.isEmpty {
            message = domain.fields.map { "\($0.field): \($0.message)" }.joined(separator: " ")
        }
        return (rendered.status, message)
    }
}
