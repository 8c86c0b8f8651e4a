import Glibc

/// A tiny blocking HTTP client over a POSIX socket: raw bytes in, parsed responses out.
/// Every read has a timeout, so a test can fail but never hang. WebSocketTestClient speaks
/// frames over one of these.
final class RawClient {
    struct Response {
        var statusCode: Int
        var headers: [(String, String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
        var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    enum ClientError: Error { case connect(Int32), timeout, closed, malformed(String) }

    let fd: Int32
    /// Received bytes not consumed yet (by `readResponse`, or a WebSocketTestClient's frames).
    var buffer: [UInt8] = []
    /// Every byte received so far, for tests that only count.
    private(set) var receivedByteCount = 0

    /// `receiveBuffer`: SO_RCVBUF, set before connecting (a small one makes a slow reader).
    init(port: Int, readTimeoutSeconds: Int = 5, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw ClientError.connect(code)
        }
        var timeout = timeval(tv_sec: readTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw ClientError.closed }
            offset += sent
        }
    }

    /// Reads more bytes into the buffer; false on orderly close (or reset).
    func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if received > 0 {
            receivedByteCount += received
            buffer.append(contentsOf: chunk[..<received])
            return true
        }
        if received == 0 { return false }
        if errno == EAGAIN || errno == EWOULDBLOCK { throw ClientError.timeout }
        if errno == ECONNRESET { return false }
        throw ClientError.closed
    }

    /// Reads one response. `forHead` means no body follows despite Content-Length.
    func readResponse(forHead: Bool = false) throws -> Response {
        var headEnd: Int?
        while headEnd == nil {
            headEnd = Self.find([13, 10, 13, 10], in: buffer)
            if headEnd == nil, try !fill() { throw ClientError.closed }
        }
        guard let end = headEnd else { throw ClientError.closed }
        let headText = String(decoding: buffer[..<end], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0] == "HTTP/1.1", let code = Int(parts[1]) else {
            throw ClientError.malformed(statusLine)
        }
        var headers: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw ClientError.malformed(line) }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmedSpaces()))
        }
        buffer.removeFirst(end + 4)
        var response = Response(statusCode: code, headers: headers, body: [])
        let hasBody = !forHead && code >= 200 && code != 204 && code != 304
        if hasBody, let length = response.header("Content-Length").flatMap({ Int($0) }) {
            while buffer.count < length {
                if try !fill() { throw ClientError.closed }
            }
            response.body = Array(buffer[..<length])
            buffer.removeFirst(length)
        }
        return response
    }

    /// True when the server closes the connection (EOF or reset) before a read times out.
    /// Received bytes are counted, then dropped.
    func waitForClose() -> Bool {
        while true {
            do {
                if try !fill() { return true }
                buffer.removeAll(keepingCapacity: true)
            } catch {
                return false
            }
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return start }
        }
        return nil
    }
}

extension String {
    func trimmedSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
