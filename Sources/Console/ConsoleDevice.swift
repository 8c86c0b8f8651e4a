/// A person-readable name for the device behind a session, from its User-Agent: "Chrome on
/// Linux", "iPhone (CFNetwork)". Unrecognised agents are shown as sent, shortened; none is
/// "Unknown device". Only for display: nothing is decided on it.
enum ConsoleDevice {
    static let browsers: [(token: String, name: String)] = [
        ("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Safari/", "Safari"),
    ]
    static let systems: [(token: String, name: String)] = [
        ("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("Mac OS X", "macOS"), ("Macintosh", "macOS"),
        ("Windows", "Windows"), ("CrOS", "ChromeOS"), ("Linux", "Linux"),
    ]

    static func describe(_ userAgent: String?) -> String {
        guard let agent = userAgent, !agent.isEmpty else { return "Unknown device" }
        let system = systems.first { agent.contains($0.token) }?.name
        if let browser = browsers.first(where: { agent.contains($0.token) })?.name {
            return system.map { "\(browser) on \($0)" } ?? browser
        }
        if agent.contains("CFNetwork") || agent.contains("Darwin") { return "\(system ?? "Apple device") app (CFNetwork)" }
        return agent.count > 60 ? String(agent.prefix(60)) + "…" : agent
    }
}
