package org.meshjava.conformance.pack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A subject's output is read in bounded lines and a bounded queue, so a broken subject cannot
 * exhaust the runner's heap; a well-behaved subject's answers all arrive, the last one included.
 */
class SubjectProcessTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNode REQUEST = JSON.createObjectNode().put("op", "ping");

  private static SubjectProcess subject(String script) throws Exception {
    return SubjectProcess.start(List.of("sh", "-c", script), Duration.ofSeconds(20));
  }

  @Test
  void answersArriveInOrder_theLastBeforeTheSubjectExits_andCrlfIsAccepted() throws Exception {
    try (SubjectProcess s =
        subject("read a; printf '{\"n\":1}\\r\\n'; read b; printf '{\"n\":2}'; exit 0")) {
      assertThat(s.ask(REQUEST).map(a -> a.get("n").asInt())).contains(1);
      assertThat(s.ask(REQUEST).map(a -> a.get("n").asInt())).contains(2);
      assertThat(s.ask(REQUEST)).isEmpty();
      assertThat(s.gone()).isTrue();
    }
  }

  /**
   * Regression: a line that was not a JSON object was taken for no answer at all, and one that was
   * not JSON also for the subject gone, so a subject writing garbage had every case skipped and was
   * said to have stopped answering. The line is its answer, and the subject answers on.
   */
  @Test
  void aLineThatIsNotAJsonObject_isTheAnswer_andTheSubjectAnswersOn() throws Exception {
    String deep = "[".repeat(5000) + "]".repeat(5000);
    try (SubjectProcess s =
        subject(
            "read a; echo 'not json'; read b; echo 42; read c; echo '"
                + deep
                + "'; read d; printf '{\"n\":1'; exit 0")) {
      assertThat(s.ask(REQUEST)).contains(JSON.getNodeFactory().textNode("not json"));
      assertThat(s.ask(REQUEST)).contains(JSON.getNodeFactory().textNode("42"));
      assertThat(s.ask(REQUEST)).contains(JSON.getNodeFactory().textNode(deep));
      assertThat(s.gone()).isFalse();
      // Cut short by the subject's exit: what it wrote is its answer, and then it is gone.
      assertThat(s.ask(REQUEST)).contains(JSON.getNodeFactory().textNode("{\"n\":1"));
      assertThat(s.ask(REQUEST)).isEmpty();
      assertThat(s.gone()).isTrue();
    }
  }

  @Test
  void anAnswerLineOverTheBound_endsTheSubject_withoutHoldingIt() throws Exception {
    long start = System.nanoTime();
    // 300 MB of one line that then never ends: unbounded, the answer would wait out the timeout.
    try (SubjectProcess s =
        subject("read a; head -c 300000000 /dev/zero | tr '\\0' a && sleep 60")) {
      Optional<JsonNode> answer = s.ask(REQUEST);
      assertThat(answer).isEmpty();
      assertThat(s.gone()).isTrue();
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
  }

  @Test
  void aSubjectWritingWithoutEnd_isHeldToTheQueue_andEndsWhenClosed() throws Exception {
    long closing;
    try (SubjectProcess s = subject("read a; yes '{\"n\":7}'")) {
      for (int i = 0; i < 3 * SubjectProcess.QUEUED_ANSWERS; i++) {
        assertThat(s.ask(REQUEST).map(a -> a.get("n").asInt())).contains(7);
      }
      Thread.sleep(200); // yes writes on; the reader holds what the queue takes and waits
      assertThat(s.queued()).isEqualTo(SubjectProcess.QUEUED_ANSWERS);
      closing = System.nanoTime();
    }
    // close() alone (not the asks before it, which a loaded machine slows) returned without
    // waiting out its 5 s grace for a subject that never stops writing: the writer was cut off.
    assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(5));
  }

  /**
   * Regression: the request was written on the asking thread, so a subject that read no more of its
   * input held the runner for good once a request outgrew the pipe's buffer (64 KiB on Linux), its
   * timeout never reached. The write counts against the timeout, and close() does not wait on it.
   */
  @Test
  void aSubjectThatStopsReading_timesOut_evenMidRequest_andCloses() {
    JsonNode large = JSON.createObjectNode().put("pad", "a".repeat(1 << 20));
    // Unbounded, ask() (then close()) would never return: this bound is liveness, far above the
    // 1 s timeout that ends the ask.
    assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () -> {
          try (SubjectProcess s =
              SubjectProcess.start(
                  List.of("sh", "-c", "read a; echo '{\"n\":1}'; exec sleep 300"),
                  Duration.ofSeconds(1))) {
            assertThat(s.ask(REQUEST).map(a -> a.get("n").asInt())).contains(1);
            assertThat(s.ask(large)).isEmpty();
            assertThat(s.gone()).isTrue();
          }
        });
  }

  @Test
  void close_endsWhatTheSubjectStarted_notOnlyItsShell() throws Exception {
    List<ProcessHandle> started;
    try (SubjectProcess s =
        SubjectProcess.start(List.of("sh", "-c", "sleep 300; :"), Duration.ofMillis(200))) {
      started = List.of(grandchild(s)); // the shell's sleep
      assertThat(s.ask(REQUEST)).isEmpty(); // it never answers
    }
    for (ProcessHandle child : started) {
      assertEnded(child, "the shell's child");
    }
  }

  /** The first process {@code s} has started, once it has started one. */
  private static ProcessHandle grandchild(SubjectProcess s) throws InterruptedException {
    for (int i = 0; i < 500; i++) {
      Optional<ProcessHandle> c = s.handle().descendants().findFirst();
      if (c.isPresent()) {
        return c.get();
      }
      Thread.sleep(10);
    }
    throw new AssertionError("the subject started nothing");
  }

  /**
   * Asserts {@code p} has ended within 10 s; ends it, failing, if not (it is this test's own
   * process). A process that has exited and waits, a zombie, for its parent to collect it has
   * ended: what the subject started is an orphan once the subject is gone, its parent is then the
   * machine's init, and some containers' init collects only every second or two, while {@link
   * ProcessHandle#onExit} (which polls a process not this JVM's child, every 300 ms and more) waits
   * for that collection, not for the exit: 1.4 to 2.4 s a process where CI runs.
   */
  private static void assertEnded(ProcessHandle p, String what) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!exited(p)) {
      if (System.nanoTime() - deadline > 0) {
        p.destroyForcibly();
        throw new AssertionError(what + " (pid " + p.pid() + ") still runs");
      }
      Thread.sleep(10);
    }
  }

  /** Whether {@code p} has exited: it is gone, or (where /proc shows it) a zombie. */
  private static boolean exited(ProcessHandle p) {
    if (!p.isAlive()) {
      return true;
    }
    try {
      String stat =
          Files.readString(
              Path.of("/proc", Long.toString(p.pid()), "stat"), StandardCharsets.UTF_8);
      // "pid (comm) S ...": the state follows the last ')', as a command may hold one.
      String state = stat.substring(stat.lastIndexOf(')') + 1).strip();
      return state.startsWith("Z") || state.startsWith("X");
    } catch (IOException noProc) {
      // Gone since, or no /proc: isAlive() alone says.
      return !p.isAlive();
    }
  }

  /**
   * Regression: a subject that started a process of its own in the background ({@code sh -c 'sleep
   * 1000 & exec subject'}) and exited when its input closed left that process running after the
   * run: once the subject had exited, its children were no longer its descendants, so close() found
   * none to end.
   */
  @Test
  void close_endsWhatTheSubjectStarted_evenAfterTheSubjectExits() throws Exception {
    ProcessHandle background;
    try (SubjectProcess s =
        subject("sleep 300 & exec sh -c 'while read l; do echo \"{\\\"n\\\":1}\"; done'")) {
      background = grandchild(s);
      assertThat(s.ask(REQUEST).map(a -> a.get("n").asInt())).contains(1);
    }
    assertEnded(background, "the subject's background process");
  }

  /**
   * A subject that starts a process while answering and then exits mid-run leaves that process to
   * init, where only the look around the answer names it: close() ends it all the same. The look is
   * skipped when nothing was started on the machine since the last one; this pins that a start is
   * not missed.
   */
  @Test
  void close_endsWhatTheSubjectStartedWhileAnswering_afterItExitedMidRun() throws Exception {
    ProcessHandle background;
    try (SubjectProcess s =
        subject("read a; sleep 300 >/dev/null 2>&1 & echo '{\"n\":1}'; read b; exit 3")) {
      assertThat(s.ask(REQUEST).map(a -> a.get("n").asInt())).contains(1);
      background = grandchild(s);
      assertThat(s.ask(REQUEST)).isEmpty();
      assertThat(s.gone()).isTrue();
      assertThat(s.exitStatus(Duration.ofSeconds(10))).hasValue(3);
    }
    assertEnded(background, "what the subject started while answering");
  }

  /** The machine's fork count, which lets a look be skipped, is read, and grows with a start. */
  @Test
  void forks_isReadOnLinux_andGrowsWhenAProcessStarts() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/stat")), "no /proc/stat");
    long before = SubjectProcess.forks();
    assertThat(before).isPositive();
    new ProcessBuilder("true").start().waitFor();
    assertThat(SubjectProcess.forks()).isGreaterThan(before);
  }

  /**
   * Regression: a subject that gave no answer in time was left running, with what it started, until
   * the run's end (and what it started outlived even that when the subject exited first). Both end
   * as soon as the answer runs out of time, and the subject is not taken to have exited with a
   * status of its own.
   */
  @Test
  void aTimeout_endsTheSubjectAndWhatItStarted_atOnce() throws Exception {
    try (SubjectProcess s =
        SubjectProcess.start(
            List.of("sh", "-c", "sleep 300 & exec sleep 301"), Duration.ofMillis(300))) {
      ProcessHandle background = grandchild(s);
      assertThat(s.ask(REQUEST)).isEmpty();
      assertThat(s.gone()).isTrue();
      assertEnded(s.handle(), "the subject");
      assertEnded(background, "the subject's background process");
      assertThat(s.timedOut()).isTrue();
      assertThat(s.exitStatus(Duration.ofSeconds(1))).isEmpty();
    }
  }
}
