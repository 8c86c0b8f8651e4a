// libFuzzer target for HTTPRequestParser. Built by scripts/fuzz-parser together with the
// HTTP1 sources as one module (`-module-name HTTP1`), so no import is needed.
//
// For every input and two limit profiles (defaults, and tiny limits that put every limit
// path within reach), the parser is driven like a server drives it: whole, split at two
// data-derived offsets, and (for small inputs) one byte at a time. Any difference between
// those runs, any `consumed` outside the presented bytes, a parser that makes no progress,
// or one that forgets its failure, aborts (which is what libFuzzer reports as a crash).

private enum FuzzEvent: Equatable {
    case head(HTTPRequestHead)
    case complete(HTTPRequest)
    case failure(HTTPParseError)
    case incomplete
}

private let limitProfiles = [
    HTTPParserLimits(),
    HTTPParserLimits(maxRequestLineBytes: 24, maxHeaderBytes: 64, maxHeaderCount: 4, maxBodyBytes: 32),
]

/// Feeds `input` in pieces ending at `cuts` (then the rest) and returns what happened.
private func drive(_ input: UnsafeBufferPointer<UInt8>, cuts: [Int], limits: HTTPParserLimits) -> [FuzzEvent] {
    var parser = HTTPRequestParser(limits: limits)
    var events: [FuzzEvent] = []
    var buffer: [UInt8] = []
    var start = 0
    for end in cuts + [input.count] {
        buffer.append(contentsOf: input[start..<end])
        start = end
        var rounds = 0
        while true {
            rounds += 1
            if rounds > input.count + 2 { fatalError("parser makes no progress") }
            let result = parser.parse(buffer)
            let consumed: Int
            switch result {
            case .needMore(let n):
                consumed = n
            case .headComplete(let head, let n):
                events.append(.head(head))
                consumed = n
            case .complete(let request, let n):
                events.append(.complete(request))
                consumed = n
            case .failure(let error):
                events.append(.failure(error))
                if parser.parse([UInt8(ascii: "G")]) != .failure(error) { fatalError("parser forgot its failure") }
                return events
            }
            if consumed < 0 || consumed > buffer.count { fatalError("consumed \(consumed) of \(buffer.count)") }
            buffer.removeFirst(consumed)
            if case .needMore = result { break }
        }
    }
    if !buffer.isEmpty || !parser.isAtRequestBoundary { events.append(.incomplete) }
    return events
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    for limits in limitProfiles {
        let whole = drive(input, cuts: [], limits: limits)
        if size > 0 {
            let firstCut = Int(input[0]) % (size + 1)
            let secondCut = max(firstCut, size - Int(input[size - 1]) % (size + 1))
            if drive(input, cuts: [firstCut], limits: limits) != whole { fatalError("split at \(firstCut) differs from whole") }
            if drive(input, cuts: [firstCut, secondCut], limits: limits) != whole {
                fatalError("split at \(firstCut),\(secondCut) differs from whole")
            }
        }
        if size <= 2048, drive(input, cuts: Array(0..<size), limits: limits) != whole {
            fatalError("byte-by-byte differs from whole")
        }
    }
    return 0
}
