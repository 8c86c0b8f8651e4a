import Foundation

/// A person's last failed requests on this instance (`FailureRing`), as the person page and
/// their Sync health page show them: time, method, route pattern, status, error code and the
/// request id to find the log line. Nothing of a request's body is ever kept.
enum ConsoleFailures {
    static func data(userID: UUID, site: ConsoleSite) -> [String: Any] {
        let failures = site.failures?.recent(userID: userID) ?? []
        return [
            "noFailures": failures.isEmpty,
            "failures": failures.map { entry in
                ["at": ConsoleFormat.time(entry.at), "method": entry.method, "route": entry.route, "status": entry.status,
                 "serverError": entry.status >= 500, "code": entry.errorCode ?? "—", "requestID": entry.requestID] as [String: Any]
            },
        ]
    }
}
