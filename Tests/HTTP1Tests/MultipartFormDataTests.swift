import HTTP1
import Testing

/// The strict multipart/form-data reader: the bodies the official clients send, byte for byte,
/// and each way a body can be malformed (RFC 7578 / RFC 2046 §5.1).
@Suite struct MultipartFormDataTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array("DATA\r\n--".utf8)

    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    func parse(_ body: [UInt8], boundary: String = "b0undary", limits: MultipartFormData.Limits = .init())
        throws(MultipartFormData.Problem) -> [MultipartFormData.Part] {
        try MultipartFormData.parse(body, boundary: Array(boundary.utf8), limits: limits)
    }

    func problem(_ body: [UInt8], boundary: String = "b0undary", limits: MultipartFormData.Limits = .init())
        -> MultipartFormData.Problem? {
        do { _ = try parse(body, boundary: boundary, limits: limits); return nil } catch { return error }
    }

    /// What supabase-py (httpx) sends, captured from httpx 0.28: a named `file` part whose file
    /// name has its quote percent-encoded, after a `cacheControl` field; content containing
    /// CRLF and `--` must come back byte for byte.
    @Test func readsStorage3sBody() throws {
        let boundary = "7a32d8e08f25dd6ee4eb2fe8683ded8a"
        let body = bytes("--\(boundary)\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n3600\r\n"
                         + "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a%22b.png\"\r\n"
                         + "Content-Type: text/plain;charset=UTF-8\r\n\r\n") + Self.png + bytes("\r\n--\(boundary)--\r\n")
        let contentType = "multipart/form-data; boundary=\(boundary)"
        let parts = try MultipartFormData.parse(body, boundary: try MultipartFormData.boundary(contentType: contentType))
        #expect(parts.count == 2)
        #expect(parts[0] == .init(name: "cacheControl", filename: nil, contentType: nil, body: bytes("3600")[...]))
        #expect(parts[1].name == "file")
        #expect(parts[1].filename == "a%22b.png")
        #expect(parts[1].contentType == "text/plain;charset=UTF-8")
        #expect(Array(parts[1].body) == Self.png)
    }

    /// What supabase-swift (its Alamofire-derived MultipartFormData) sends: the file part's
    /// field name is empty, the body ends without a CRLF after the close delimiter... or with one.
    @Test(arguments: ["", "\r\n"])
    func readsSupabaseSwiftsBodyWithAnEmptyFieldName(ending: String) throws {
        let boundary = "alamofire.boundary.3f2a1b4c5d6e7f80"
        let body = bytes("--\(boundary)\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n3600"
                         + "\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"\"; filename=\"me.png\"\r\n"
                         + "Content-Type: image/png\r\n\r\n") + Self.png + bytes("\r\n--\(boundary)--\(ending)")
        let parts = try parse(body, boundary: boundary)
        #expect(parts.map(\.name) == ["cacheControl", ""])
        #expect(parts[1].filename == "me.png")
        #expect(Array(parts[1].body) == Self.png)
    }

    @Test func emptyPartsQuotedPairsAndTransportPadding() throws {
        let body = bytes("--b0undary \t\r\ncontent-disposition: FORM-DATA; NAME=\"a\\\"b\" ; filename=x.png\r\n"
                         + "X-Ignored: yes\r\nContent-Transfer-Encoding: binary\r\n\r\n\r\n--b0undary--")
        let parts = try parse(body)
        #expect(parts == [.init(name: "a\"b", filename: "x.png", contentType: nil, body: [])])
    }

    @Test(arguments: [
        ("multipart/form-data; boundary=abc", "abc"),
        ("Multipart/Form-Data;boundary=\"a b:c\"", "a b:c"),
        ("multipart/form-data; charset=utf-8; boundary=" + String(repeating: "x", count: 70), String(repeating: "x", count: 70)),
    ])
    func boundaryFromContentType(contentType: String, boundary: String) throws {
        #expect(try MultipartFormData.boundary(contentType: contentType) == Array(boundary.utf8))
    }

    @Test(arguments: [
        "multipart/mixed; boundary=abc", "multipart/form-data", "multipart/form-data; boundary=",
        "multipart/form-data; boundary=\"abc \"", "multipart/form-data; boundary=" + String(repeating: "x", count: 71),
        "multipart/form-data; boundary=a; boundary=b", "multipart/form-data; boundary=\"a\u{1}b\"",
        "multipart/form-data; boundary=\"abc", "multipart/form-data; boundary=a*b", "multipart/form-data boundary=abc",
    ])
    func badContentTypeIsRefused(contentType: String) {
        #expect(throws: MultipartFormData.Problem.notFormData) { try MultipartFormData.boundary(contentType: contentType) }
    }

    static let disposition = "Content-Disposition: form-data; name=\"f\"\r\n"

    @Test(arguments: [
        ("preamble\r\n--b0undary\r\n\(disposition)\r\nx\r\n--b0undary--", MultipartFormData.Problem.missingFirstBoundary),
        ("--b0undaryX\r\n\(disposition)\r\nx\r\n--b0undary--", .malformedBoundaryLine),
        ("--b0undary\r\n\(disposition)\r\nx\r\n--b0undaryX\r\n", .malformedBoundaryLine),
        ("--b0undary\n\(disposition)\r\nx\r\n--b0undary--", .malformedBoundaryLine),
        ("--b0undary\r\n\(disposition)\r\nx\r\n--b0undary", .unterminated),
        ("--b0undary\r\n\(disposition)\r\nx--b0undary--", .unterminated),
        ("--b0undary\r\n\(disposition)\r\nx", .unterminated),
        ("--b0undary", .unterminated),
        ("--b0undary\r\n\(disposition)\r\nx\r\n--b0undary--\r\nepilogue", .epilogue),
        ("--b0undary\r\n\(disposition)\r\nx\r\n--b0undary--\n", .epilogue),
        ("--b0undary\r\nContent-Disposition: form-data; name=\"f\"\n\r\nx\r\n--b0undary--", .malformedHeader),
        ("--b0undary\r\n\(disposition) folded: no\r\n\r\nx\r\n--b0undary--", .malformedHeader),
        ("--b0undary\r\nNo colon here\r\n\(disposition)\r\nx\r\n--b0undary--", .malformedHeader),
        ("--b0undary\r\n: empty name\r\n\(disposition)\r\nx\r\n--b0undary--", .malformedHeader),
        ("--b0undary\r\n\(disposition)", .malformedHeader),
        ("--b0undary\r\n\r\nx\r\n--b0undary--", .invalidDisposition),
        ("--b0undary\r\nContent-Disposition: attachment; name=\"f\"\r\n\r\nx\r\n--b0undary--", .invalidDisposition),
        ("--b0undary\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b0undary--", .invalidDisposition),
        ("--b0undary\r\nContent-Disposition: form-data; name=\"f\"; size=3\r\n\r\nx\r\n--b0undary--", .invalidDisposition),
        ("--b0undary\r\nContent-Disposition: form-data; name=\"f\"; name=\"g\"\r\n\r\nx\r\n--b0undary--", .invalidDisposition),
        ("--b0undary\r\nContent-Disposition: form-data; name=\"f\r\n\r\nx\r\n--b0undary--", .invalidDisposition),
        ("--b0undary\r\n\(disposition)\(disposition)\r\nx\r\n--b0undary--", .invalidDisposition),
        ("--b0undary\r\n\(disposition)Content-Transfer-Encoding: base64\r\n\r\nx\r\n--b0undary--", .unsupportedPartHeader),
        ("--b0undary\r\n\(disposition)Content-Type: a/b\r\nContent-Type: c/d\r\n\r\nx\r\n--b0undary--", .unsupportedPartHeader),
    ])
    func malformedBodyIsRefused(body: String, expected: MultipartFormData.Problem) {
        #expect(problem(bytes(body)) == expected, "\(body.debugDescription)")
    }

    @Test func headerBytesThatAreNotUTF8AreRefused() {
        let body = bytes("--b0undary\r\nContent-Disposition: form-data; name=\"") + [0xC3, 0x28]
            + bytes("\"\r\n\r\nx\r\n--b0undary--")
        #expect(problem(body) == .malformedHeader)
        let utf8 = bytes("--b0undary\r\nContent-Disposition: form-data; name=\"f\"; filename=\"é.png\"\r\n\r\nx\r\n--b0undary--")
        #expect((try? parse(utf8))?.first?.filename == "é.png")
    }

    @Test func limitsBoundPartsAndHeaders() {
        let part = "--b0undary\r\n\(Self.disposition)\r\nx\r\n"
        let limits = MultipartFormData.Limits(maxParts: 3, maxHeaderBytes: 64)
        #expect((try? parse(bytes(String(repeating: part, count: 3) + "--b0undary--"), limits: limits))?.count == 3)
        #expect(problem(bytes(String(repeating: part, count: 4) + "--b0undary--"), limits: limits) == .tooManyParts)
        let longHeader = "--b0undary\r\nX-Long: \(String(repeating: "a", count: 64))\r\n\(Self.disposition)\r\nx\r\n--b0undary--"
        #expect(problem(bytes(longHeader), limits: limits) == .headersTooLarge)
    }

    /// The delimiter is CRLF + `--boundary`: a boundary without the CRLF, or a CRLF + a longer
    /// lookalike, is content.
    @Test func lookalikeBoundariesInsideContentAreContent() throws {
        let content = "--b0undary x\r\n--b0undar\r\n-b0undary"
        let parts = try parse(bytes("--b0undary\r\n\(Self.disposition)\r\n\(content)\r\n--b0undary--"))
        #expect(parts.map { String(decoding: $0.body, as: UTF8.self) } == [content])
    }
}
