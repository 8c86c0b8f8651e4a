import HTTP1

/// Matches a fixture `expect:` line against an event.
enum Expectation {
    static func mismatch(_ expectation: String, _ event: ParseEvent) -> String? {
        let words = expectation.split(separator: " ").map(String.init)
        guard let kind = words.first else { return "empty expectation" }
        switch (kind, event) {
        case ("incomplete", .incomplete):
            return nil
        case ("error", .failure(let error)):
            return words.count == 2 && words[1] == error.code ? nil : "expected \(expectation), got \(event)"
        case ("complete", .complete(let request)):
            guard words.count >= 4 else { return "malformed expectation \(expectation)" }
            var problems: [String] = []
            let target = (try? Fixture.unescape(words[2], fixture: "")).map { String(decoding: $0, as: UTF8.self) }
            if words[1] != request.method.rawValue { problems.append("method \(request.method)") }
            if target != request.head.target { problems.append("target \(request.head.target)") }
            if words[3] != request.head.version.description { problems.append("version \(request.head.version)") }
            for pair in words.dropFirst(4) {
                guard let eq = pair.firstIndex(of: "=") else { problems.append("bad key \(pair)"); continue }
                let key = String(pair[..<eq])
                let raw = String(pair[pair.index(after: eq)...])
                let value = (try? Fixture.unescape(raw, fixture: "")) ?? []
                switch key {
                case "headers": if Int(raw) != request.headers.count { problems.append("headers=\(request.headers.count)") }
                case "body": if Int(raw) != request.body.count { problems.append("body=\(request.body.count)") }
                case "trailers": if Int(raw) != request.trailers.count { problems.append("trailers=\(request.trailers.count)") }
                case "bodytext": if value != request.body { problems.append("bodytext=\(String(decoding: request.body, as: UTF8.self))") }
                case _ where key.hasPrefix("hdr:"):
                    let name = String(key.dropFirst(4))
                    let actual = request.headers[name] ?? request.trailers[name]
                    if actual.map({ Array($0.utf8) }) != value { problems.append("\(name)=\(actual ?? "nil")") }
                default: problems.append("unknown key \(key)")
                }
            }
            return problems.isEmpty ? nil : "expected \(expectation), got \(problems.joined(separator: ", "))"
        default:
            return "expected \(expectation), got \(event)"
        }
    }
}
