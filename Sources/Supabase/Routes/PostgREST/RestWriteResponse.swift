import HTTP1
import HTTPServer

/// The answer to a `/rest/v1` write, shaped as PostgREST's `Response.hs` shapes it, for every
/// table (the users' PATCH included):
/// - `return=representation`: the rows (201 for POST, 200 otherwise), or one bare object with
///   the single-object Accept; otherwise 201 / 204 with no body.
/// - `Content-Range` on every write, as PostgREST sends it: `*/<n>` for POST and DELETE, and
///   `0-<n-1>/<n>` for PATCH (`*/0` when nothing matched); the total is `*` without
///   `Prefer: count=…`. The clients read `count` from the part after the slash.
/// - `Preference-Applied` naming the `Prefer` values honoured (`RestPreferenceApplied`).
enum RestWriteResponse {
    /// `rows`: the JSON texts of the rows written, projected to `select=` when represented.
    static func make(_ method: HTTPMethod, _ write: RestWriteRequest, rows: [String]) -> HTTPResponse {
        var response: HTTPResponse
        if write.preferences.returning != .representation {
            response = HTTPResponse(status: method == .post ? .created : .noContent)
        } else {
            let status: HTTPStatus = method == .post ? .created : .ok
            if write.single, let row = rows.first {
                response = HTTPResponse(status: status, headers: ["Content-Type": RestReadRoutes.objectType],
                                        body: Array(row.utf8))
            } else {
                response = HTTPResponse(status: status, headers: ["Content-Type": RestReadRoutes.jsonType],
                                        body: RestWriteRoutes.jsonArray(rows))
            }
        }
        response.headers.set(name: "Content-Range", value: contentRange(method, written: rows.count, counted: write.count != nil))
        RestPreferenceApplied(write: write, method: method).apply(to: &response)
        return response
    }

    /// PostgREST reports the total only for `count=exact` and `estimated` on writes (its
    /// `shouldCount`); `planned` would be a planner estimate there. Here the number of rows
    /// written is known exactly at no cost, so every count mode gets it.
    static func contentRange(_ method: HTTPMethod, written: Int, counted: Bool) -> String {
        let total = counted ? String(written) : "*"
        // PostgREST's contentRangeH: an update names the rows 0…n-1; an insert or delete (range
        // 1…0) and an update of nothing have no range, only "*".
        guard method == .patch, written > 0 else { return "*/\(total)" }
        return "0-\(written - 1)/\(total)"
    }
}
