/// The server's version, shown on the console's Server page. Raised with each release.
enum ServerVersion {
    static let current = "0.1.0"
}
