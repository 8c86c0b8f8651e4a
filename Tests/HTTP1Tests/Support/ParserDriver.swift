import HTTP1

/// What a caller observes from a parser over a whole byte stream.
enum ParseEvent: Equatable, CustomStringConvertible {
    case head(HTTPRequestHead)
    case complete(HTTPRequest)
    case failure(HTTPParseError)
    /// The stream ended in the middle of a request.
    case incomplete

    var description: String {
        switch self {
        case .head(let h): return "head \(h.method) \(h.target)"
        case .complete(let r):
            return "complete \(r.method) \(r.head.target) \(r.head.version) headers=\(r.headers.count) body=\(r.body.count) trailers=\(r.trailers.count)"
        case .failure(let e): return "error \(e.code)"
        case .incomplete: return "incomplete"
        }
    }
}

/// Drives a parser the way a server does: a receive buffer, unconsumed bytes re-presented
/// with the next read. Records every event and every contract violation.
struct ParserDriver {
    var events: [ParseEvent] = []
    var violations: [String] = []

    static func run(_ input: [UInt8], limits: HTTPParserLimits, pieces cuts: [Int]) -> ParserDriver {
        var driver = ParserDriver()
        var parser = HTTPRequestParser(limits: limits)
        var buffer: [UInt8] = []
        var start = 0
        var failed = false
        var pendingHead: HTTPRequestHead?
        for end in cuts + [input.count] where !failed {
            buffer += input[start..<end]
            start = end
            var rounds = 0
            feeding: while true {
                rounds += 1
                if rounds > input.count + 10 { driver.violations.append("parser does not make progress"); failed = true; break }
                let result = parser.parse(buffer)
                switch result {
                case .needMore(let consumed):
                    guard driver.checkConsumed(consumed, buffer.count) else { failed = true; break feeding }
                    buffer.removeFirst(consumed)
                    break feeding
                case .headComplete(let head, let consumed):
                    guard driver.checkConsumed(consumed, buffer.count) else { failed = true; break feeding }
                    if pendingHead != nil { driver.violations.append("two headComplete for one request") }
                    if consumed == 0 { driver.violations.append("headComplete consumed nothing") }
                    pendingHead = head
                    driver.events.append(.head(head))
                    buffer.removeFirst(consumed)
                case .complete(let request, let consumed):
                    guard driver.checkConsumed(consumed, buffer.count) else { failed = true; break feeding }
                    if consumed == 0 && pendingHead == nil { driver.violations.append("complete consumed nothing") }
                    let hasBody = request.headers.contains("Transfer-Encoding") || (request.headers["Content-Length"].flatMap { Int($0) } ?? 0) > 0
                    if hasBody && pendingHead != request.head { driver.violations.append("body request without matching headComplete") }
                    if !hasBody && pendingHead != nil { driver.violations.append("headComplete for a bodiless request") }
                    pendingHead = nil
                    driver.events.append(.complete(request))
                    buffer.removeFirst(consumed)
                case .failure(let error):
                    driver.events.append(.failure(error))
                    if parser.parse([UInt8(ascii: "G")]) != .failure(error) { driver.violations.append("parser did not stay failed") }
                    failed = true
                    break feeding
                }
            }
        }
        if !failed && (!buffer.isEmpty || !parser.isAtRequestBoundary) { driver.events.append(.incomplete) }
        return driver
    }

    private mutating func checkConsumed(_ consumed: Int, _ available: Int) -> Bool {
        guard consumed >= 0, consumed <= available else {
            violations.append("consumed \(consumed) of \(available) bytes")
            return false
        }
        return true
    }

    /// Events without the `.head` ones (their placement is checked as a contract violation).
    var outcome: [ParseEvent] { events.filter { if case .head = $0 { return false }; return true } }
}
