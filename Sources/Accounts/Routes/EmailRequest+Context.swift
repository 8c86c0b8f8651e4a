import HTTPServer

extension AuthService.EmailRequest {
    /// This request as an unauthenticated client at `context.clientAddress` made it.
    package func from(_ context: RequestContext) -> Self {
        var request = self
        request.source = context.clientAddress
        return request
    }
}
