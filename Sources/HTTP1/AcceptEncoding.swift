/// Reads `Accept-Encoding` (RFC 9110 §12.5.3) far enough to decide on gzip: a list of
/// codings, each with an optional weight `;q=` from 0 to 1 (0: "not acceptable").
///
/// gzip is acceptable when `gzip` (or its alias `x-gzip`, §8.4.1.3) is listed with q > 0, or
/// is not listed and `*` is, with q > 0. No header, or a header that names neither, means no
/// gzip: identity is always safe. A malformed weight makes its element count as q=0 rather
/// than guess.
public enum AcceptEncoding {
    public static func acceptsGzip(_ headerValues: [String]) -> Bool {
        var gzip: Double?
        var wildcard: Double?
        for value in headerValues {
            for element in value.split(separator: ",") {
                let parts = element.split(separator: ";")
                guard let first = parts.first else { continue }
                let coding = String(first.trimmingASCIIWhitespace()).lowercasedASCII()
                guard !coding.isEmpty else { continue }
                var weight = 1.0
                for parameter in parts.dropFirst() {
                    let pair = parameter.split(separator: "=", maxSplits: 1)
                    guard pair.count == 2, String(pair[0].trimmingASCIIWhitespace()).lowercasedASCII() == "q" else { continue }
                    weight = qvalue(pair[1].trimmingASCIIWhitespace()) ?? 0
                }
                switch coding {
                case "gzip", "x-gzip": gzip = max(gzip ?? 0, weight)
                case "*": wildcard = weight
                default: break
                }
            }
        }
        if let gzip { return gzip > 0 }
        return (wildcard ?? 0) > 0
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )` (RFC 9110 §12.4.2).
    static func qvalue(_ text: Substring) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= 3, fraction.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
        if whole == "1" { return fraction.allSatisfy { $0 == "0" } ? 1 : nil }
        return Double("0." + fraction + "0") ?? 0
    }
}
