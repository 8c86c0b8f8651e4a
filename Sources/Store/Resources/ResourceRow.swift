/// One listing, task, activity or history row as the API returns it: the JSON text built by
/// `dispatch_json` (migration 0005) and the version its ETag names.
public struct ResourceRow: Sendable, Equatable {
    public var json: String
    public var version: Int

    public init(json: String, version: Int) {
        self.json = json
        self.version = version
    }
}
