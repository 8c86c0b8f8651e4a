/// How log lines are written: `text` for people at a terminal, `json` (one object per line)
/// for log collectors.
enum LogFormat: String, CaseIterable, Sendable {
    case text
    case json
}
