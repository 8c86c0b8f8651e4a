/// An incremental, strict HTTP/1.1 request parser (RFC 9112).
///
/// Feed it whatever bytes arrived; see `HTTPParseResult` for the contract. Every byte is
/// examined exactly once: a partial line is copied into a small internal buffer (bounded by
/// the limits), so the parser normally consumes all it is given and a client dribbling a
/// line byte by byte costs linear, not quadratic, work. It stops early only at the end of a
/// head that is followed by a body (`.headComplete`) and at the end of a request
/// (`.complete`), leaving pipelined bytes for the next call. After `.failure` it stays failed.
public struct HTTPRequestParser: Sendable {
    public let limits: HTTPParserLimits

    /// Longest chunk-size line (size plus extensions). Extensions carry nothing we use, so a
    /// fixed, generous bound is enough.
    static let maxChunkLineBytes = 4096

    private enum State: Sendable {
        case requestLine
        case headerLine(RequestLine)
        case fixedBody(HTTPRequestHead, remaining: Int)
        case chunkSizeLine(HTTPRequestHead)
        case chunkData(HTTPRequestHead, remaining: Int)
        case chunkDataCR(HTTPRequestHead)
        case chunkDataLF(HTTPRequestHead)
        case trailerLine(HTTPRequestHead)
        case failed(HTTPParseError)
    }

    private enum LineEvent {
        case incomplete, complete, bareLineFeed, bareCarriageReturn, tooLong
    }

    private var state: State = .requestLine
    /// The current line's bytes without CRLF.
    private var line: [UInt8] = []
    /// The current line ended in CR; the next byte must be LF.
    private var awaitingLineFeed = false
    private var skippedEmptyLineBytes = 0
    /// Bytes of field lines (with their CRLFs) so far, header section and trailers together.
    private var fieldBytes = 0
    private var fieldCount = 0
    private var headers = HTTPHeaders()
    private var body: [UInt8] = []
    private var trailers = HTTPHeaders()

    public init(limits: HTTPParserLimits = HTTPParserLimits()) {
        self.limits = limits
    }

    /// True between requests: no byte of a next request has been consumed yet.
    public var isAtRequestBoundary: Bool {
        if case .requestLine = state { return line.isEmpty && !awaitingLineFeed && skippedEmptyLineBytes == 0 }
        return false
    }

    public mutating func parse(_ input: [UInt8]) -> HTTPParseResult {
        input.withUnsafeBytes { parse($0) }
    }

    public mutating func parse(_ input: ArraySlice<UInt8>) -> HTTPParseResult {
        input.withUnsafeBytes { parse($0) }
    }

    public mutating func parse(_ input: UnsafeRawBufferPointer) -> HTTPParseResult {
        var index = 0
        while true {
            switch state {
            case .failed(let error):
                return .failure(error)

            case .requestLine:
                switch readLine(input, &index, limit: limits.maxRequestLineBytes) {
                case .incomplete: return .needMore(consumed: index)
                case .tooLong: return fail(.requestLineTooLong)
                case .bareLineFeed: return fail(.bareLineFeed)
                case .bareCarriageReturn: return fail(.invalidCharacter)
                case .complete:
                    // RFC 9112 §2.2 allows ignoring empty lines before a request line; they
                    // are bounded like the request line itself.
                    if line.isEmpty {
                        skippedEmptyLineBytes += 2
                        if skippedEmptyLineBytes > limits.maxRequestLineBytes { return fail(.requestLineTooLong) }
                        continue
                    }
                    do throws(HTTPParseError) {
                        state = .headerLine(try RequestLine.parse(line))
                    } catch {
                        return fail(error)
                    }
                    line.removeAll(keepingCapacity: true)
                }

            case .headerLine(let requestLine):
                switch readLine(input, &index, limit: limits.maxHeaderBytes - fieldBytes) {
                case .incomplete: return .needMore(consumed: index)
                case .tooLong: return fail(.headerSectionTooLarge)
                case .bareLineFeed: return fail(.bareLineFeed)
                case .bareCarriageReturn: return fail(.invalidCharacter)
                case .complete:
                    if line.isEmpty { return finishHead(requestLine, consumed: index) }
                    do throws(HTTPParseError) {
                        let field = try takeFieldLine()
                        headers.add(name: field.name, value: field.value)
                    } catch {
                        return fail(error)
                    }
                }

            case .fixedBody(let head, let remaining):
                let count = min(remaining, input.count - index)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index..<(index + count)]))
                index += count
                if count == remaining { return complete(head, consumed: index) }
                state = .fixedBody(head, remaining: remaining - count)
                return .needMore(consumed: index)

            case .chunkSizeLine(let head):
                // A stray CR/LF or an overlong line is blamed on the part it sits in, so that
                // a CR or LF smuggled into an extension reads as a bad extension.
                switch readLine(input, &index, limit: Self.maxChunkLineBytes) {
                case .incomplete: return .needMore(consumed: index)
                case .bareLineFeed: return fail(lineHasExtension ? .invalidChunkExtension : .bareLineFeed)
                case .tooLong, .bareCarriageReturn: return fail(lineHasExtension ? .invalidChunkExtension : .invalidChunkSize)
                case .complete:
                    let size: UInt64
                    do throws(HTTPParseError) { size = try ChunkSizeLine.parse(line) } catch { return fail(error) }
                    line.removeAll(keepingCapacity: true)
                    if size == 0 {
                        state = .trailerLine(head)
                    } else if size > UInt64(max(0, limits.maxBodyBytes - body.count)) {
                        return fail(.bodyTooLarge)
                    } else {
                        state = .chunkData(head, remaining: Int(size))
                    }
                }

            case .chunkData(let head, let remaining):
                let count = min(remaining, input.count - index)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index..<(index + count)]))
                index += count
                if count < remaining {
                    state = .chunkData(head, remaining: remaining - count)
                    return .needMore(consumed: index)
                }
                state = .chunkDataCR(head)

            case .chunkDataCR(let head):
                guard index < input.count else { return .needMore(consumed: index) }
                guard input[index] == ByteClass.cr else { return fail(.invalidChunkTerminator) }
                index += 1
                state = .chunkDataLF(head)

            case .chunkDataLF(let head):
                guard index < input.count else { return .needMore(consumed: index) }
                guard input[index] == ByteClass.lf else { return fail(.invalidChunkTerminator) }
                index += 1
                state = .chunkSizeLine(head)

            case .trailerLine(let head):
                switch readLine(input, &index, limit: limits.maxHeaderBytes - fieldBytes) {
                case .incomplete: return .needMore(consumed: index)
                case .tooLong: return fail(.headerSectionTooLarge)
                case .bareLineFeed: return fail(.bareLineFeed)
                case .bareCarriageReturn: return fail(.invalidCharacter)
                case .complete:
                    if line.isEmpty { return complete(head, consumed: index) }
                    do throws(HTTPParseError) {
                        let field = try takeFieldLine(isTrailer: true)
                        trailers.add(name: field.name, value: field.value)
                    } catch {
                        return fail(error)
                    }
                }
            }
        }
    }

    /// Appends bytes up to the end of the current line (or of `input`) to `line`.
    /// Scans at most `limit - line.count + 1` bytes, so an endless line costs bounded work.
    private mutating func readLine(_ input: UnsafeRawBufferPointer, _ index: inout Int, limit: Int) -> LineEvent {
        if !awaitingLineFeed {
            let room = max(0, limit - line.count)
            // Written to avoid `index + room + 1` overflowing when a limit is Int.max.
            let scanEnd = input.count - index > room ? index + room + 1 : input.count
            var cursor = index
            while cursor < scanEnd {
                let b = input[cursor]
                if b == ByteClass.cr || b == ByteClass.lf { break }
                cursor += 1
            }
            line.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index..<cursor]))
            index = cursor
            if line.count > limit { return .tooLong }
            guard cursor < input.count else { return .incomplete }
            if input[cursor] == ByteClass.lf { return .bareLineFeed }
            index += 1
            awaitingLineFeed = true
        }
        guard index < input.count else { return .incomplete }
        guard input[index] == ByteClass.lf else { return .bareCarriageReturn }
        index += 1
        awaitingLineFeed = false
        return .complete
    }

    /// Parses the buffered field line, charging it to the header limits (trailers share them).
    private mutating func takeFieldLine(isTrailer: Bool = false) throws(HTTPParseError) -> HTTPHeaders.Field {
        fieldBytes += line.count + 2
        if fieldBytes > limits.maxHeaderBytes { throw .headerSectionTooLarge }
        fieldCount += 1
        if fieldCount > limits.maxHeaderCount { throw .tooManyHeaders }
        defer { line.removeAll(keepingCapacity: true) }
        do {
            return try FieldLine.parse(line)
        } catch {
            throw isTrailer ? .invalidTrailer : error
        }
    }

    private mutating func finishHead(_ requestLine: RequestLine, consumed: Int) -> HTTPParseResult {
        let head = HTTPRequestHead(method: requestLine.method, target: requestLine.target,
                                   version: requestLine.version, headers: headers)
        let framing: MessageFraming
        do throws(HTTPParseError) {
            try HostSyntax.check(head)
            framing = try MessageFraming.determine(for: head, limits: limits)
        } catch {
            return fail(error)
        }
        switch framing {
        case .none:
            return complete(head, consumed: consumed)
        case .contentLength(let length):
            body.reserveCapacity(length)
            state = .fixedBody(head, remaining: length)
        case .chunked:
            state = .chunkSizeLine(head)
        }
        return .headComplete(head, consumed: consumed)
    }

    private mutating func complete(_ head: HTTPRequestHead, consumed: Int) -> HTTPParseResult {
        let request = HTTPRequest(head: head, body: body, trailers: trailers)
        state = .requestLine
        line.removeAll(keepingCapacity: true)
        awaitingLineFeed = false
        skippedEmptyLineBytes = 0
        fieldBytes = 0
        fieldCount = 0
        headers = HTTPHeaders()
        body = []
        trailers = HTTPHeaders()
        return .complete(request, consumed: consumed)
    }

    private var lineHasExtension: Bool { line.contains(UInt8(ascii: ";")) }

    private mutating func fail(_ error: HTTPParseError) -> HTTPParseResult {
        state = .failed(error)
        line = []
        body = []
        headers = HTTPHeaders()
        trailers = HTTPHeaders()
        return .failure(error)
    }
}
