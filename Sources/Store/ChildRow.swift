/// A note or subtask as the API and the sync feed return it: its JSON text, produced by
/// `dispatch_json` in PostgreSQL (migration 0005), and its version (the ETag).
public struct ChildRow: Sendable, Equatable {
    public var json: String
    public var version: Int

    public init(json: String, version: Int) {
        self.json = json
        self.version = version
    }
}
