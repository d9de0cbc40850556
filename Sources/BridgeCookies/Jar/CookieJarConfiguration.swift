extension CookieJar {
    /// Limits and the public-suffix guard of a ``CookieJar``.
    ///
    /// The defaults are the minimums RFC 6265 §6.1 asks a user agent to support.
    public struct Configuration: Sendable, Hashable {
        /// The largest cookie accepted, in UTF-8 bytes of its name and value together
        /// (draft-ietf-httpbis-rfc6265bis §5.6 step 4, as browsers count; RFC 6265 §6.1 asks
        /// for at least 4096 bytes including attributes, which made the limit depend on the
        /// length of the host name). Larger cookies are refused, never truncated, with
        /// ``CookieError/cookieTooLarge(name:bytes:limit:)``.
        public var maxCookieBytes: Int
        /// The most cookies kept for one domain value (RFC 6265 §6.1: at least 50). Counted per
        /// ``Cookie/domain`` as stored (`example.com` and `www.example.com` count separately;
        /// browsers count per registrable domain, which needs the full public-suffix list).
        /// Over this or ``maxCookies``, cookies that are not HttpOnly go first (a script can set
        /// them; a page's `document.cookie` flood then never evicts a server's HttpOnly
        /// session), then RFC 6265 §5.3's order: the least recently accessed, then the oldest.
        public var maxCookiesPerDomain: Int
        /// The most cookies kept in total (RFC 6265 §6.1: at least 3000).
        public var maxCookies: Int
        /// How names and values are written in the `Cookie` header and the `document.cookie`
        /// script — both the same way (field case R43). ``CookieOutputEncoding/asStored`` by
        /// default (RFC 6265 §5.4 step 4).
        public var outputEncoding: CookieOutputEncoding
        /// Extra public suffixes (lowercased, without a leading dot, e.g. `"myhosting.example"`)
        /// on top of the built-in guard, see ``isPublicSuffix(_:)``.
        public var additionalPublicSuffixes: Set<String>

        /// Creates a configuration; the limits default to the RFC 6265 §6.1 minimums, the output
        /// to the stored octets (§5.4).
        public init(
            maxCookieBytes: Int = 4096,
            maxCookiesPerDomain: Int = 50,
            maxCookies: Int = 3000,
            additionalPublicSuffixes: Set<String> = [],
            outputEncoding: CookieOutputEncoding = .asStored
        ) {
            self.maxCookieBytes = maxCookieBytes
            self.maxCookiesPerDomain = maxCookiesPerDomain
            self.maxCookies = maxCookies
            self.outputEncoding = outputEncoding
            self.additionalPublicSuffixes = additionalPublicSuffixes
        }

        /// A small, built-in stand-in for the Public Suffix List (publicsuffix.org): common
        /// two-label registry suffixes. It is not complete — a `Domain` such as
        /// `Domain=pvt.k12.ma.us` is not caught — so add the suffixes your app meets to
        /// ``additionalPublicSuffixes``.
        public static let builtInPublicSuffixes: Set<String> = [
            "co.uk", "org.uk", "ac.uk", "gov.uk", "ltd.uk", "plc.uk", "me.uk", "net.uk",
            "com.au", "net.au", "org.au", "edu.au", "gov.au",
            "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp",
            "co.nz", "org.nz", "net.nz", "co.za", "org.za",
            "com.br", "net.br", "org.br", "com.cn", "net.cn", "org.cn", "gov.cn",
            "co.in", "net.in", "org.in", "co.kr", "or.kr", "com.mx", "com.tw", "com.tr",
            "com.sg", "com.hk", "co.il", "com.ar", "com.es", "co.id",
            "github.io", "gitlab.io", "herokuapp.com", "pages.dev", "vercel.app",
            "netlify.app", "web.app", "firebaseapp.com", "azurewebsites.net",
            "cloudfront.net", "appspot.com", "blogspot.com",
        ]

        /// Whether `domain` (lowercased, no leading dot) is treated as a public suffix
        /// (RFC 6265 §5.3 step 5): a single label (`com`, `localhost`), a built-in suffix, or
        /// one of ``additionalPublicSuffixes``.
        public func isPublicSuffix(_ domain: String) -> Bool {
            !domain.contains(".") || Self.builtInPublicSuffixes.contains(domain)
                || additionalPublicSuffixes.contains(domain)
        }
    }
}
