import Foundation

/// Where sync tests send requests: in-process instances (SyncTestServer) or `dispatchd`
/// processes (SyncSoakCluster). Writers, devices and replicas are written against this, so the
/// convergence tests and the soak share them.
protocol SyncEndpoint: Sendable {
    /// `GET /v1/sync` as `member`.
    func sync(_ member: SyncTestServer.Member, since: String?, limit: Int?, wait: Int?) throws -> TestHTTPClient.Response
    /// Any other request.
    func perform(method: String, path: String, headers: [String: String], body: [UInt8]) throws -> TestHTTPClient.Response
}

extension SyncTestServer: SyncEndpoint {
    func sync(_ member: Member, since: String?, limit: Int?, wait: Int?) throws -> TestHTTPClient.Response {
        try sync(member, since: since, limit: limit, wait: wait, instance: 0)
    }

    func perform(method: String, path: String, headers: [String: String], body: [UInt8]) throws -> TestHTTPClient.Response {
        try client.perform(method: method, path: path, headers: headers, body: body)
    }
}
