import ServiceKit

extension AuthService: MetricsSource {
    package func writeMetrics(to output: inout PrometheusText) {
        output.family("auth_login_failures_total", type: "counter", help: "Sign-ins refused for a wrong email, password or a deactivated account.")
        output.sample("auth_login_failures_total", [], loginFailures)
    }
}
