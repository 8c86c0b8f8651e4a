/// Whether the server can do useful work right now (for `GET /readyz`). Kept abstract so the
/// operations routes do not depend on how the database is reached.
package protocol ReadinessCheck: Sendable {
    func check() -> Readiness
}

package enum Readiness: Sendable, Equatable {
    case ready
    /// `reason` is for operators (logged and returned in `details.reason`); it must not carry
    /// credentials or SQL.
    case notReady(reason: String)
}
