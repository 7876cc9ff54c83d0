package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.InMemoryJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.steward.ServeException;

/**
 * What a refusal tells the official OpenAI SDKs, which resend a request answered 408, 409, 429 or
 * 5xx on their own unless the reply carries {@code x-should-retry: false}.
 *
 * <p>Found with openai-python 3.22.1 and its default two retries: a granted serve whose upstream
 * was down was answered 502 {@code engine_failed}, the SDK sent the same body again, and the caller
 * got {@code PermissionDeniedError: presentation-spent} instead of the engine failure.
 */
class RetryAdviceTest {
  private final SigningKey caller = Jcp.newKey();

  private record Sent(
      int status, String body, Optional<String> shouldRetry, Optional<String> after) {
    String code() throws Exception {
      return Fixture.JSON.readTree(body).get("error").get("code").asText();
    }
  }

  private static Sent post(Fixture f, JsonNode body) throws Exception {
    return post(f, "/v1/chat/completions", body);
  }

  private static Sent post(Fixture f, String path, JsonNode body) throws Exception {
    HttpResponse<String> r =
        f.http.send(
            HttpRequest.newBuilder(f.uri(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build(),
            HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    return new Sent(
        r.statusCode(),
        r.body(),
        r.headers().firstValue("x-should-retry"),
        r.headers().firstValue("retry-after"));
  }

  private ObjectNode granted(Fixture f, String prompt) throws Exception {
    GrantChain chain = f.grant(caller, 5_000_000);
    ObjectNode body = Fixture.chat(prompt);
    body.putObject("metadata").put("joule_ceiling_uj", "200000");
    body.put(
        "jcp_presentation", Jcp.present(caller, chain, GrantedServeRequest.derive(body)).toHex());
    return body;
  }

  @Test
  void grantedServeFailingInItsEngine_saysNotToResend_becauseTheResendFindsThePresentationSpent()
      throws Exception {
    try (Fixture f =
        new Fixture(
            null,
            b -> b.backend(ThrowingEngine.of(new IllegalStateException("connection refused"))),
            b -> {})) {
      ObjectNode body = granted(f, "Upstream is down.");

      Sent first = post(f, body);
      assertThat(first.status()).as(first.body()).isEqualTo(502);
      assertThat(first.code()).isEqualTo("engine_failed");
      assertThat(first.shouldRetry()).contains("false");

      // What an SDK's automatic resend would have met, and shown its caller instead.
      Sent resent = post(f, body);
      assertThat(resent.status()).isEqualTo(403);
      assertThat(resent.code()).isEqualTo("presentation-spent");
    }
  }

  /**
   * A 500 {@code internal_error} said nothing, so the SDKs resent it: a granted serve whose reply
   * could not be rendered after it was sealed spent its presentation, and the resend was refused
   * {@code presentation-spent}, hiding the failure; an ungranted one was served and sealed again,
   * three times in all. The binding cannot tell how far the request got when its own bug met it.
   */
  @Test
  void internalErrorAfterTheSeal_saysNotToResend_grantedOrNot() throws Exception {
    try (Fixture f = new Fixture(null, b -> {}, RequestIdTest::bugAfterTheSeal)) {
      ObjectNode body = granted(f, "Render me.");

      Sent first = post(f, body);
      assertThat(first.status()).as(first.body()).isEqualTo(500);
      assertThat(first.code()).isEqualTo("internal_error");
      assertThat(first.shouldRetry()).contains("false");
      // The serve was sealed before the bug met it: a resend finds the presentation spent.
      Sent resent = post(f, body);
      assertThat(resent.code()).isEqualTo("presentation-spent");

      Sent ungranted = post(f, Fixture.chat("Render me too."));
      assertThat(ungranted.status()).isEqualTo(500);
      assertThat(ungranted.shouldRetry()).contains("false");
    }
  }

  @Test
  void ungrantedServeFailingInItsEngine_leavesTheResendToTheClient() throws Exception {
    try (Fixture f =
        new Fixture(
            null,
            b -> b.backend(ThrowingEngine.of(new IllegalStateException("connection refused"))),
            b -> {})) {
      Sent s = post(f, Fixture.chat("Upstream is down."));
      assertThat(s.status()).isEqualTo(502);
      // An upstream may be back a second later, and nothing was spent.
      assertThat(s.shouldRetry()).isEmpty();
    }
  }

  @Test
  void grantOnAStewardWhoseJournalIsNotDurable_saysNotToResend() throws Exception {
    try (Fixture f = new Fixture(SigningKey.generate(), b -> {}, b -> {})) {
      Sent s = post(f, granted(f, "Granted."));
      assertThat(s.status()).isEqualTo(503);
      assertThat(s.code()).isEqualTo("journal_not_durable");
      assertThat(s.shouldRetry()).contains("false");
    }
  }

  /**
   * A draining server's 503 {@code shutting_down} said nothing about coming back: no {@code
   * Retry-After}, unlike the 429s. Nothing of the request was decided, so a resend (to the instance
   * that replaces this one, or another behind the same address) can be served: the answer says
   * {@code Retry-After: 1}, never {@code x-should-retry: false}, and closes its connection so that
   * the resend opens a new one rather than reach this server again. Whether the POST is refused
   * from its head, or its body was on its way when the drain began.
   */
  @Test
  void shuttingDown_saysRetryAfterASecond_andClosesTheConnection() throws Exception {
    try (Fixture f = new Fixture()) {
      byte[] body = Fixture.chat("while draining").toString().getBytes(StandardCharsets.UTF_8);
      String head =
          RawConnection.post(
              "/v1/chat/completions",
              "Content-Type: application/json",
              "Expect: 100-continue",
              "Content-Length: " + body.length);
      try (RawConnection early = new RawConnection(f)) {
        // The head passed before the drain began: the body is asked for, and refused once read.
        assertThat(early.send(head).read().status()).isEqualTo(100);
        assertThat(f.server.drain(Duration.ofSeconds(5))).isTrue();
        shuttingDown(early.send(body).read());
        assertThat(early.closedWithin(2_000)).as("closed after the body's refusal").isTrue();
      }
      try (RawConnection late = new RawConnection(f)) {
        shuttingDown(late.send(head).read());
        assertThat(late.closedWithin(2_000)).as("closed after the head's refusal").isTrue();
      }
    }
  }

  private static void shuttingDown(RawConnection.Response r) {
    r.answer().error(503, "shutting_down");
    assertThat(r.header("Retry-After")).hasValue("1");
    assertThat(r.header("x-should-retry")).isEmpty();
    assertThat(r.header("Connection")).hasValue("close");
  }

  /**
   * A journal that records until {@link #breakDown} and then refuses every append, as a file
   * journal does after a write or sync failed (SPEC.md 60.2).
   */
  private static final class BreakingJournal extends ForwardingJournal {
    /** Where the journal's own messages say it is, as a file journal's do. */
    static final String PATH = "/var/lib/mesh/operator-only.journal";

    private volatile boolean broken;

    BreakingJournal() {
      super(new InMemoryJournal());
    }

    void breakDown() {
      broken = true;
    }

    @Override
    public Pending enqueue(JournalEntry entry) throws JournalException {
      if (broken) {
        throw new JournalException(
            JournalException.Reason.IO, "write to " + PATH + " failed: the disk is gone", null);
      }
      return super.enqueue(entry);
    }

    @Override
    public Optional<String> refusesAppends() {
      return broken
          ? Optional.of("journal " + PATH + " failed: the disk is gone")
          : super.refusesAppends();
    }
  }

  /**
   * An ungranted serve refused {@code not_recorded} said nothing, so the SDKs resent it twice to a
   * journal that takes no append until the steward is restarted on it. Whether the receipt's own
   * record was refused or the serve was refused before any work because the journal had failed; on
   * both endpoints, streamed or not (a stream is refused before its first event).
   */
  @Test
  void ungrantedServeOnAFailedJournal_saysNotToResend_onEveryEndpoint() throws Exception {
    BreakingJournal journal = new BreakingJournal();
    try (Fixture f = new Fixture(null, b -> b.journal(journal), b -> {})) {
      assertThat(post(f, Fixture.chat("Recorded.")).status()).isEqualTo(200);
      journal.breakDown();

      Sent receiptRefused = post(f, Fixture.chat("The receipt's record fails."));
      assertThat(receiptRefused.status()).as(receiptRefused.body()).isEqualTo(503);
      assertThat(receiptRefused.code()).isEqualTo("not_recorded");
      assertThat(receiptRefused.shouldRetry()).contains("false");
      notDescribingTheJournal("the receipt's record", receiptRefused);

      ObjectNode responses = Fixture.JSON.createObjectNode().put("model", "auto");
      responses.put("input", "Refused before any work.");
      for (String path : new String[] {"/v1/chat/completions", "/v1/responses"}) {
        for (boolean stream : new boolean[] {false, true}) {
          ObjectNode body =
              path.endsWith("responses") ? responses.deepCopy() : Fixture.chat("Refused.");
          body.put("stream", stream);
          Sent s = post(f, path, body);
          String which = path + (stream ? " streamed" : "");
          assertThat(s.status()).as(which + ": " + s.body()).isEqualTo(503);
          assertThat(s.code()).as(which).isEqualTo("not_recorded");
          assertThat(s.shouldRetry()).as(which).contains("false");
          assertThat(s.after()).as(which).isEmpty();
          notDescribingTheJournal(which, s);
        }
      }
    }
  }

  /**
   * The client's answer says the journal failed and what to do, not the journal's own words: they
   * name its file (or database), which the API listener, facing the network, does not disclose
   * (SPEC 78). The operator reads them in the server's log and on the console.
   */
  private static void notDescribingTheJournal(String which, Sent s) {
    assertThat(s.body())
        .as(which)
        .contains("journal failed")
        .doesNotContain(BreakingJournal.PATH)
        .doesNotContain("the disk is gone");
  }

  /**
   * A journal closed with its steward is not a failure: the server is going away, and what answers
   * at its address next may serve an ungranted resend.
   */
  @Test
  void ungrantedServeOnAJournalClosedWithItsSteward_leavesTheResendToTheClient() {
    ServeException closed =
        new ServeException(
            ServeException.Reason.NOT_RECORDED,
            "the receipt could not be journalled",
            new JournalException(JournalException.Reason.CLOSED, "journal is closed", null));
    assertThat(Endpoints.refusal(closed, false).retry()).isEqualTo(Reply.Retry.UNSAID);
    assertThat(Endpoints.refusal(closed, true).retry()).isEqualTo(Reply.Retry.FUTILE);
  }

  /**
   * Regression: a granted serve refused because its steward was closed was answered {@code
   * x-should-retry: false}, as if its grant had been decided and its presentation spent. It was
   * refused before any work: nothing was decided, so the same request to a steward that is running
   * (this one started again, or another behind the same address) can be served.
   */
  @Test
  void grantedServeOnAClosedSteward_leavesTheResendToTheClient() throws Exception {
    try (Fixture f = new Fixture()) {
      ObjectNode body = granted(f, "Refused before its grant was decided.");
      f.steward.close();
      Sent s = post(f, body);
      assertThat(s.status()).as(s.body()).isEqualTo(503);
      assertThat(s.code()).isEqualTo("not_recorded");
      assertThat(s.body()).contains("the steward is closed").contains("not spent");
      assertThat(s.shouldRetry()).isEmpty();
    }
  }

  /**
   * Regression: a journal failure met while the steward was closing (its close waiting for serves
   * in flight) was answered as a closed steward's refusal, without {@code x-should-retry: false},
   * so the SDKs resent the request to a journal that takes no append until it is seen to. The
   * failure is what the answer says now, with the advice of any failed journal.
   */
  @Test
  void serveMeetingAJournalFailureWhileTheStewardCloses_saysNotToResend() throws Exception {
    java.util.concurrent.CountDownLatch asking = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch closeWaits = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean armed =
        new java.util.concurrent.atomic.AtomicBoolean();
    ForwardingJournal failsUnderTheClose =
        new ForwardingJournal(new InMemoryJournal()) {
          @Override
          public Optional<String> refusesAppends() {
            if (!armed.compareAndSet(true, false)) {
              return super.refusesAppends();
            }
            asking.countDown();
            try {
              closeWaits.await(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return Optional.of("journal x failed: No space left on device");
          }
        };
    var threads = java.util.concurrent.Executors.newCachedThreadPool();
    try (Fixture f =
        new Fixture(
            null, b -> b.journal(failsUnderTheClose).closeGrace(Duration.ofSeconds(30)), b -> {})) {
      armed.set(true);
      var sent = threads.submit(() -> post(f, Fixture.chat("Admitted, then the disk filled.")));
      assertThat(asking.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      Thread closer = new Thread(f.steward::close, "closer");
      closer.start();
      while (closer.getState() != Thread.State.TIMED_WAITING) {
        assertThat(closer.isAlive()).as("the close waits for the serve in flight").isTrue();
        Thread.sleep(5);
      }
      closeWaits.countDown();
      Sent s = sent.get(30, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(s.status()).as(s.body()).isEqualTo(503);
      assertThat(s.code()).isEqualTo("not_recorded");
      assertThat(s.body())
          .contains("journal failed")
          .doesNotContain("journal x failed")
          .doesNotContain("steward is closed");
      assertThat(s.shouldRetry()).contains("false");
      closer.join(30_000);
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void overload_saysRetryAfterASecond_andNothingElse() {
    for (boolean granted : new boolean[] {false, true}) {
      Reply.Json r =
          Endpoints.refusal(
              new ServeException(ServeException.Reason.BACKEND_BUSY, "full"), granted);
      assertThat(r.status()).isEqualTo(429);
      assertThat(r.retry()).isEqualTo(Reply.Retry.AFTER_A_SECOND);
    }
  }

  /**
   * Each reason once, granted and not: refused before the grant was decided, a resend may be
   * served; after, on a grant, it meets a spent presentation; grants suspended or a journal not
   * durable stay so until an operator acts.
   */
  @Test
  void everyReason_advisesAResendOnlyWhereOneCouldBeServed() {
    EnumSet<ServeException.Reason> futileWhenGranted =
        EnumSet.of(
            ServeException.Reason.ENGINE_FAILED,
            ServeException.Reason.INCONSISTENT_OUTCOME,
            ServeException.Reason.FIDELITY_OVERCLAIM,
            ServeException.Reason.WEIGHTS_CHANGED,
            ServeException.Reason.NOT_RECORDED);
    EnumSet<ServeException.Reason> futileAlways =
        EnumSet.of(
            ServeException.Reason.GRANTS_SUSPENDED, ServeException.Reason.JOURNAL_NOT_DURABLE);
    for (ServeException.Reason reason : ServeException.Reason.values()) {
      ServeException e = new ServeException(reason, "why");
      Reply.Retry granted = Endpoints.refusal(e, true).retry();
      Reply.Retry ungranted = Endpoints.refusal(e, false).retry();
      boolean alwaysFutile = futileAlways.contains(reason);
      assertThat(granted == Reply.Retry.FUTILE)
          .as(reason + " granted")
          .isEqualTo(alwaysFutile || futileWhenGranted.contains(reason));
      assertThat(ungranted == Reply.Retry.FUTILE).as(reason + " ungranted").isEqualTo(alwaysFutile);
    }
  }
}
