import HTTP1
import Testing

/// `Accept-Encoding` (RFC 9110 §12.5.3): when gzip may be sent.
@Suite struct AcceptEncodingTests {
    @Test(arguments: [
        (["gzip"], true),
        (["GZip, deflate, br"], true),
        (["br;q=1.0, gzip;q=0.8, *;q=0.1"], true),
        (["x-gzip"], true),
        (["*"], true),
        (["identity"], false),
        ([], false),
        ([""], false),
        (["gzip;q=0"], false),
        (["gzip; q=0.000"], false),
        (["gzip;Q=0"], false),
        (["*;q=1, gzip;q=0"], false),       // listed gzip wins over the wildcard
        (["gzip;q=0, *"], false),
        (["*;q=0"], false),
        (["gzip;q=0.001"], true),
        (["gzip;q=1.000"], true),
        (["gzip;q=1.5"], false),            // malformed weight: not acceptable rather than a guess
        (["gzip;q=0.5000"], false),
        (["gzip;q=abc"], false),
        (["deflate", "gzip"], true),        // several header lines are one list
    ] as [([String], Bool)])
    func gzipIsAcceptedOnlyWithAPositiveWeight(values: [String], accepted: Bool) {
        #expect(AcceptEncoding.acceptsGzip(values) == accepted, "\(values)")
    }
}
