import HTTP1
import Store

/// PostgREST's `Preference-Applied` (RFC 7240 §3): which of the request's `Prefer` values
/// shaped this answer. PostgREST builds it in `Preferences.hs` (`prefAppliedHeader`: the
/// values comma-joined in the order resolution, missing, return, count, tx, handling,
/// timezone, max-affected) from what `Response.hs` (`responsePreferences`) keeps per request:
/// `resolution=` on inserts only, `missing=` on inserts and updates, `return=` on writes only,
/// `count=` everywhere. We send the ones this server honours, under the same rules; `tx=`,
/// `handling=`, `timezone=` and `max-affected=` are not applied here, so never reported. With
/// nothing applied there is no header, as in PostgREST.
struct RestPreferenceApplied: Sendable, Equatable {
    var resolution: RestWritePreferences.Resolution?
    var missingDefault = false
    var returning: RestWritePreferences.Return?
    var count: RestCountMode?

    static let headerName = "Preference-Applied"

    /// What a read applied: only its count (`Content-Range`'s total).
    init(count: RestCountMode?) {
        self.count = count
    }

    /// What a write applied, by method as PostgREST decides it: a POST is an insert (or upsert),
    /// a PATCH an update, a DELETE neither.
    init(write: RestWriteRequest, method: HTTPMethod) {
        let preferences = write.preferences
        resolution = method == .post ? preferences.resolution : nil
        missingDefault = (method == .post || method == .patch) && preferences.missingDefault
        returning = preferences.returnRequested ? preferences.returning : nil
        count = write.count
    }

    var value: String? {
        var applied: [String] = []
        switch resolution {
        case .merge: applied.append("resolution=merge-duplicates")
        case .ignore: applied.append("resolution=ignore-duplicates")
        case nil: break
        }
        if missingDefault { applied.append("missing=default") }
        switch returning {
        case .representation: applied.append("return=representation")
        case .minimal: applied.append("return=minimal")
        case nil: break
        }
        if let count { applied.append("count=\(count.rawValue)") }
        return applied.isEmpty ? nil : applied.joined(separator: ", ")
    }

    func apply(to response: inout HTTPResponse) {
        if let value { response.headers.set(name: Self.headerName, value: value) }
    }
}
