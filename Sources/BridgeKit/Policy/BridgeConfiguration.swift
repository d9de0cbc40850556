/// A router's settings.
public struct BridgeConfiguration: Sendable {
    /// Who may call. Default: main frame only, no origin allowed (see ``AccessPolicy``).
    public var policy: AccessPolicy
    /// Resource limits.
    public var limits: BridgeLimits
    /// The time limit for a task that does not declare its own (``BridgeTask/timeout``), or `nil`
    /// for none. Default `nil`: tasks such as an alert may wait for a person indefinitely; the
    /// page can still set a per-call timeout.
    public var defaultTimeout: Duration?

    /// Creates a configuration without checking it. An invalid origin pattern in `policy` still
    /// denies (and was reported on standard error when it was made, see ``OriginPattern``); use
    /// ``init(validating:limits:defaultTimeout:)`` or ``validate()`` to have it thrown.
    /// - Parameters:
    ///   - policy: who may call; default none.
    ///   - limits: resource limits; default ``BridgeLimits``' defaults.
    ///   - defaultTimeout: the time limit of a task without its own; default none.
    public init(
        policy: AccessPolicy = AccessPolicy(), limits: BridgeLimits = BridgeLimits(), defaultTimeout: Duration? = nil
    ) {
        self.policy = policy
        self.limits = limits
        self.defaultTimeout = defaultTimeout
    }

    /// Creates a configuration after checking its policy: the throwing form of
    /// ``init(policy:limits:defaultTimeout:)``.
    ///
    /// ```swift
    /// let configuration = try BridgeConfiguration(validating: .origins(["https://app.example"]))
    /// ```
    /// - Parameters:
    ///   - policy: who may call.
    ///   - limits: resource limits; default ``BridgeLimits``' defaults.
    ///   - defaultTimeout: the time limit of a task without its own; default none.
    /// - Throws: ``OriginPatternError`` for the first invalid origin pattern of `policy`.
    public init(
        validating policy: AccessPolicy, limits: BridgeLimits = BridgeLimits(),
        defaultTimeout: Duration? = nil
    ) throws(OriginPatternError) {
        try policy.validate()
        self.init(policy: policy, limits: limits, defaultTimeout: defaultTimeout)
    }

    /// Checks what can be checked before the first call: every origin pattern of ``policy``.
    /// A task's own policy (``BridgeTask/policy``) is checked by ``AccessPolicy/validate()``.
    /// - Throws: ``OriginPatternError`` for the first invalid pattern.
    public func validate() throws(OriginPatternError) {
        try policy.validate()
    }
}
