// libFuzzer target for MultipartFormData, the reader of Storage upload bodies
// (Sources/HTTP1/MultipartFormData.swift and HeaderParameters.swift). Built by
// scripts/fuzz-multipart together with those sources as one module.
//
// The first input byte picks a boundary and the limits; the rest is the body. Checked for
// every input: no crash or ASan report (bounds: every slice stays inside the body); the same
// verdict twice; an accepted body has at most `maxParts` parts, each part's content lies inside
// the body and never contains the delimiter (CRLF + `--boundary`); and writing the accepted
// parts back out with the same boundary and reading them again gives the same parts
// (what was read is what a well-formed body says). The boundary's Content-Type is checked to
// parse back to the same bytes too.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let boundaries = ["b0undary", "-", "a'()+_,-./:=? z", String(repeating: "q", count: 70)]
    let boundary = Array(boundaries[Int(bytes[0] & 3)].utf8)
    let limits = MultipartFormData.Limits(maxParts: bytes[0] & 4 == 0 ? 8 : 2, maxHeaderBytes: bytes[0] & 8 == 0 ? 4096 : 40)
    let body = Array(bytes.dropFirst())

    let quoted = "multipart/form-data; boundary=\"\(String(decoding: boundary, as: UTF8.self))\""
    guard (try? MultipartFormData.boundary(contentType: quoted)) == boundary else { fatalError("boundary round trip") }

    let first = verdict(body, boundary, limits)
    guard verdict(body, boundary, limits) == first else { fatalError("two runs over the same bytes disagree") }
    guard case .success(let parts) = first else { return 0 }
    guard parts.count <= limits.maxParts else { fatalError("more parts than the limit") }
    let delimiter = [0x0D, 0x0A] + Array("--".utf8) + boundary
    for part in parts {
        guard part.body.startIndex >= 0, part.body.endIndex <= body.count else { fatalError("part outside the body") }
        if MultipartFormData.firstIndex(of: delimiter, in: Array(part.body), from: 0) != nil {
            fatalError("a part contains the delimiter")
        }
    }
    guard case .success(let again) = verdict(encode(parts, boundary), boundary, MultipartFormData.Limits(maxParts: 8, maxHeaderBytes: 1 << 16)),
          again.map(Comparable.init) == parts.map(Comparable.init)
    else { fatalError("accepted parts do not survive being written out and read again") }
    return 0
}

private struct Comparable: Equatable {
    var name: String, filename: String?, contentType: String?, body: [UInt8]
    init(_ part: MultipartFormData.Part) {
        (name, filename, contentType, body) = (part.name, part.filename, part.contentType, Array(part.body))
    }
}

private func verdict(_ body: [UInt8], _ boundary: [UInt8], _ limits: MultipartFormData.Limits)
    -> Result<[MultipartFormData.Part], MultipartFormData.Problem> {
    Result { () throws(MultipartFormData.Problem) in try MultipartFormData.parse(body, boundary: boundary, limits: limits) }
}

/// Parts as a well-formed body: quoted-string parameters with `"` and `\` escaped.
private func encode(_ parts: [MultipartFormData.Part], _ boundary: [UInt8]) -> [UInt8] {
    func quoted(_ text: String) -> String {
        // By scalar: a quote followed by a combining mark is one Character but two scalars.
        var out = String.UnicodeScalarView()
        out.append("\"")
        for scalar in text.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { out.append("\\") }
            out.append(scalar)
        }
        out.append("\"")
        return String(out)
    }
    var out: [UInt8] = []
    for part in parts {
        out += Array("--".utf8) + boundary + [0x0D, 0x0A]
        var disposition = "Content-Disposition: form-data; name=\(quoted(part.name))"
        if let filename = part.filename { disposition += "; filename=\(quoted(filename))" }
        out += Array((disposition + "\r\n").utf8)
        if let contentType = part.contentType { out += Array("Content-Type: \(contentType)\r\n".utf8) }
        out += [0x0D, 0x0A] + Array(part.body) + [0x0D, 0x0A]
    }
    return out + Array("--".utf8) + boundary + Array("--".utf8)
}
