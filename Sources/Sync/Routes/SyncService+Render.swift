import HTTP1
import HTTPServer
import Store

extension SyncService {
    /// The page as sent, its cursors stamped with the database's epoch.
    package static func render(_ page: SyncPage, epoch: String) -> HTTPResponse {
        HTTPResponse(status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                     body: Array(page.json(epoch: epoch).utf8))
    }
}
