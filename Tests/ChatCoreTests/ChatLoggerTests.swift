import ChatCore
import Testing
import TestSupport

@Suite struct ChatLoggerTests {
    @Test func recordsAtOrAboveTheMinimumLevel() {
        let recorder = RecordingLogger()
        let logger = recorder.logger(label: "core", minimumLevel: .info)
        logger.trace("t")
        logger.debug("d")
        logger.info("i")
        logger.notice("n")
        logger.warning("w")
        logger.error("e")
        #expect(recorder.records.map(\.message) == ["i", "n", "w", "e"])
        #expect(recorder.records.map(\.level) == [.info, .notice, .warning, .error])
        #expect(recorder.records.allSatisfy { $0.label == "core" })
        #expect(recorder.messages(at: .warning) == ["w"])
        #expect(recorder.contains("n") && !recorder.contains("d"))
    }

    @Test func messagesBelowTheLevelAreNeverBuilt() {
        let recorder = RecordingLogger()
        let logger = recorder.logger(minimumLevel: .error)
        logger.debug({ () -> String in Issue.record("debug message was evaluated"); return "" }())
        #expect(recorder.records.isEmpty)
    }

    @Test func labeledSharesTheSink() {
        let recorder = RecordingLogger()
        let logger = recorder.logger(label: "node")
        logger.labeled("codec").warning("bad frame")
        #expect(recorder.records.map(\.label) == ["codec"])
        #expect(logger.label == "node")
    }

    @Test func levelsOrderLowestFirst() {
        let levels: [LogLevel] = [.trace, .debug, .info, .notice, .warning, .error]
        #expect(levels == levels.sorted())
        #expect(levels.map(\.description) == ["trace", "debug", "info", "notice", "warning", "error"])
    }
}
