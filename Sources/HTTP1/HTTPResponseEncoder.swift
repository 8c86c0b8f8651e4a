/// Serializes responses to HTTP/1.1 bytes. Pure: no clock, no sockets — the caller supplies
/// the `Date` value (see `imfFixdate(secondsSince1970:)`) and any connection headers.
public enum HTTPResponseEncoder {
    /// Appends the status line, the response's headers, a `Content-Length` (unless the
    /// response already carries one or its status forbids a body), the blank line, and — unless
    /// `omitBody` (HEAD) — the body.
    ///
    /// For HEAD the `Content-Length` still describes the body a GET would have produced
    /// (RFC 9110 §9.3.2), so the handler's body length is announced but not sent.
    /// CR and LF inside header names or values are replaced by spaces: a handler that echoes
    /// client input into a header must never be able to split the response.
    public static func encode(_ response: HTTPResponse, omitBody: Bool, into buffer: inout [UInt8]) {
        let status = response.status
        let bodyAllowed = Self.statusAllowsBody(status.code)
        buffer.reserveCapacity(buffer.count + 128 + response.headers.count * 32 + (omitBody ? 0 : response.body.count))
        appendStatusLine(status, into: &buffer)
        var sawContentLength = false
        for field in response.headers {
            if asciiCaseInsensitiveEquals(field.name, "content-length") {
                if !bodyAllowed { continue }
                sawContentLength = true
            }
            appendSanitized(field.name, into: &buffer)
            buffer.append(0x3A); buffer.append(0x20)
            appendSanitized(field.value, into: &buffer)
            buffer.append(0x0D); buffer.append(0x0A)
        }
        if bodyAllowed && !sawContentLength {
            buffer.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(response.body.count, into: &buffer)
            buffer.append(0x0D); buffer.append(0x0A)
        }
        buffer.append(0x0D); buffer.append(0x0A)
        if bodyAllowed && !omitBody { buffer.append(contentsOf: response.body) }
    }

    /// Convenience returning a fresh buffer.
    public static func encode(_ response: HTTPResponse, omitBody: Bool = false) -> [UInt8] {
        var buffer: [UInt8] = []
        encode(response, omitBody: omitBody, into: &buffer)
        return buffer
    }

    /// The interim `100 Continue` response, complete with its blank line.
    public static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// 1xx, 204 and 304 responses never carry a body nor (for 1xx/204) a Content-Length
    /// (RFC 9110 §8.6, §15.3.5, §15.4.5).
    public static func statusAllowsBody(_ code: Int) -> Bool {
        !(code < 200 || code == 204 || code == 304)
    }

    /// Allocation-free comparison of a header name with a lowercase ASCII literal.
    public static func asciiCaseInsensitiveEquals(_ name: String, _ lowercase: StaticString) -> Bool {
        let bytes = name.utf8
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            var index = 0
            for byte in bytes {
                let folded = (byte >= 0x41 && byte <= 0x5A) ? byte + 32 : byte
                if folded != expected[index] { return false }
                index += 1
            }
            return true
        }
    }

    static func appendStatusLine(_ status: HTTPStatus, into buffer: inout [UInt8]) {
        // We always answer as HTTP/1.1: a server sends its highest minor version (RFC 9110 §6.2).
        buffer.append(contentsOf: "HTTP/1.1 ".utf8)
        appendDecimal(status.code, into: &buffer)
        buffer.append(0x20)
        appendSanitized(status.reason, into: &buffer)
        buffer.append(0x0D); buffer.append(0x0A)
    }

    /// CR, LF and NUL become spaces (no header injection). Copied in one piece and checked in
    /// place: appending byte by byte, each append checking capacity, was 10 % of a `/healthz`
    /// request's instructions (bench/callgrind).
    static func appendSanitized(_ string: String, into buffer: inout [UInt8]) {
        let start = buffer.count
        let copied: Void? = string.utf8.withContiguousStorageIfAvailable { buffer.append(contentsOf: $0) }
        if copied == nil { buffer.append(contentsOf: string.utf8) }  // a bridged string: no contiguous UTF-8
        buffer.withUnsafeMutableBufferPointer { bytes in
            for index in start..<bytes.count where bytes[index] == 0x0D || bytes[index] == 0x0A || bytes[index] == 0 {
                bytes[index] = 0x20
            }
        }
    }

    static func appendDecimal(_ value: Int, into buffer: inout [UInt8]) {
        if value <= 0 { buffer.append(0x30); return }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { raw in
            while rest > 0 {
                raw[count] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
                rest /= 10
                count += 1
            }
            for i in stride(from: count - 1, through: 0, by: -1) { buffer.append(raw[i]) }
        }
    }

    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate form of a Unix time, e.g. `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110 §5.6.7).
    /// Pure arithmetic (Howard Hinnant's civil-from-days), so no Foundation formatter per request.
    public static func imfFixdate(secondsSince1970 seconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let weekday = weekdays[((days % 7) + 7) % 7]
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(weekday), \(two(day)) \(months[month - 1]) \(year) "
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }
}
