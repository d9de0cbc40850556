import Testing

@testable import BridgeKit

/// The cap on a view's open asset requests, event by event (``AssetFileSlots``).
@Suite("Asset file slots")
struct AssetFileSlotsTests {
    @Test("requests take a slot at once up to the limit; later ones wait")
    func takesUpToLimit() {
        var slots = AssetFileSlots<Int>(limit: 2)
        #expect(slots.acquire(1) == 1)
        #expect(slots.acquire(2) == 2)
        #expect(slots.acquire(3) == nil)
        #expect(slots.taken == 2)
        #expect(slots.waitingCount == 1)
    }

    @Test("a released slot goes to the request that waited longest; with none waiting it is freed")
    func releaseHandsOverFirstCome() {
        var slots = AssetFileSlots<Int>(limit: 1)
        #expect(slots.acquire(1) == 1)
        #expect(slots.acquire(2) == nil)
        #expect(slots.acquire(3) == nil)
        #expect(slots.release() == 2)
        #expect(slots.taken == 1, "the slot passed on, not freed")
        #expect(slots.release() == 3)
        #expect(slots.release() == nil)
        #expect(slots.taken == 0)
        #expect(slots.acquire(4) == 4, "a freed slot is taken again at once")
    }

    @Test("a limit below one is one; the default is 32")
    func limits() {
        #expect(AssetFileSlots<Int>(limit: 0).limit == 1)
        #expect(AssetFileSlots<Int>().limit == 32)
    }

    @Test("however requests and releases interleave, at most the limit run, each once, first come first")
    func randomTraffic() {
        var generator = SplitMix64(seed: 25)
        for _ in 0..<200 {
            let limit = Int(generator.next() % 5) + 1
            var slots = AssetFileSlots<Int>(limit: limit)
            var running = 0
            var started: [Int] = []
            var asked = 0
            for _ in 0..<300 {
                if generator.next() % 2 == 0 {
                    if let start = slots.acquire(asked) {
                        started.append(start)
                        running += 1
                    }
                    asked += 1
                } else if running > 0 {
                    if let next = slots.release() {
                        started.append(next)
                    } else {
                        running -= 1
                    }
                }
                #expect(running <= limit)
                #expect(slots.taken == running)
                #expect(running == limit || slots.waitingCount == 0, "no request waits beside a free slot")
            }
            while running > 0 {
                if let next = slots.release() { started.append(next) } else { running -= 1 }
            }
            #expect(started == Array(0..<asked), "every request ran once, in the order it asked")
        }
    }
}
