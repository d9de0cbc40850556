#if WebKitGTK
import CWebKitGTK

extension GTKPolicyRequest {
    /// Reads what a `decide-policy` signal asks about; nil for decision types this wrapper does
    /// not know (WebKit then uses its default). GTK thread.
    static func read(
        _ decision: UnsafeMutablePointer<WebKitPolicyDecision>, type: WebKitPolicyDecisionType
    ) -> GTKPolicyRequest? {
        switch type {
        case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION, WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION:
            let navigation: UnsafeMutablePointer<WebKitNavigationPolicyDecision> = gCast(gRaw(decision))
            guard let action = webkit_navigation_policy_decision_get_navigation_action(navigation) else { return nil }
            let request = webkit_navigation_action_get_request(action)
            return GTKPolicyRequest(
                kind: type == WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION ? .navigation : .newWindow,
                uri: gString(webkit_uri_request_get_uri(request)) ?? "",
                navigationType: navigationType(webkit_navigation_action_get_navigation_type(action)),
                isRedirect: webkit_navigation_action_is_redirect(action) != 0,
                isUserGesture: webkit_navigation_action_is_user_gesture(action) != 0)
        case WEBKIT_POLICY_DECISION_TYPE_RESPONSE:
            let responseDecision: UnsafeMutablePointer<WebKitResponsePolicyDecision> = gCast(gRaw(decision))
            guard let response = webkit_response_policy_decision_get_response(responseDecision) else { return nil }
            return GTKPolicyRequest(
                kind: .response,
                uri: gString(webkit_uri_response_get_uri(response)) ?? "",
                statusCode: Int(webkit_uri_response_get_status_code(response)),
                mimeType: gString(webkit_uri_response_get_mime_type(response)),
                isMainFrame: webkit_response_policy_decision_is_main_frame_main_resource(responseDecision) != 0,
                headers: headers(of: response))
        default:
            return nil
        }
    }

    /// The response's HTTP headers in order (`webkit_uri_response_get_http_headers`).
    private static func headers(of response: UnsafeMutablePointer<WebKitURIResponse>) -> [GTKHTTPHeader] {
        guard let headers = webkit_uri_response_get_http_headers(response) else { return [] }
        var iterator = SoupMessageHeadersIter()
        soup_message_headers_iter_init(&iterator, headers)
        var result: [GTKHTTPHeader] = []
        var name: UnsafePointer<CChar>?
        var value: UnsafePointer<CChar>?
        while soup_message_headers_iter_next(&iterator, &name, &value) != 0 {
            result.append(GTKHTTPHeader(name: gString(name) ?? "", value: gString(value) ?? ""))
        }
        return result
    }

    private static func navigationType(_ type: WebKitNavigationType) -> NavigationType {
        switch type {
        case WEBKIT_NAVIGATION_TYPE_LINK_CLICKED: .linkClicked
        case WEBKIT_NAVIGATION_TYPE_FORM_SUBMITTED: .formSubmitted
        case WEBKIT_NAVIGATION_TYPE_BACK_FORWARD: .backForward
        case WEBKIT_NAVIGATION_TYPE_RELOAD: .reload
        case WEBKIT_NAVIGATION_TYPE_FORM_RESUBMITTED: .formResubmitted
        default: .other
        }
    }
}
#endif
