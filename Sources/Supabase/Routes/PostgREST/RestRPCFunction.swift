import Store

/// The functions `POST /rest/v1/rpc/<name>` serves: atomic claim and release of a task or an
/// activity, one function per operation and kind, each taking the item's id.
///
/// Why this shape: `client.rpc("claim_task", params: ["task_id": id])` (supabase-swift) and
/// `client.rpc("claim_task", {"task_id": id}).execute()` (supabase-py) read as what they do,
/// the parameter is named like the foreign keys that point at the item (`notes.task_id` …),
/// and there is no table-name string a caller could misspell into another table's claim.
/// Each one runs the very store operation of `POST`/`DELETE /v1/{tasks|activities}/{id}/claim`.
enum RestRPCFunction: String, CaseIterable, Sendable {
    case claimTask = "claim_task"
    case releaseTask = "release_task"
    case claimActivity = "claim_activity"
    case releaseActivity = "release_activity"

    enum Action: Sendable { case claim, release }

    var kind: WorkItemKind {
        switch self {
        case .claimTask, .releaseTask: .task
        case .claimActivity, .releaseActivity: .activity
        }
    }

    var action: Action {
        switch self {
        case .claimTask, .claimActivity: .claim
        case .releaseTask, .releaseActivity: .release
        }
    }

    /// The one parameter: `task_id` or `activity_id` (a uuid).
    var parameter: String { "\(kind.rawValue)_id" }

    /// `public.claim_task(task_id)`, as PostgREST names a function in its messages.
    var signature: String { "public.\(rawValue)(\(parameter))" }

    static var signatures: String { allCases.map(\.signature).joined(separator: ", ") }
}
