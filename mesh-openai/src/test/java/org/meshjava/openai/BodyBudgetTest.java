package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each body was bounded ({@link OpenAiServer.Builder#maxBodyBytes}) but not the bodies being read
 * at once: 2,353 connections each sending most of a 1 MiB body and then stalling held about 5 GB of
 * a 6 GB heap until their deadline, and the server stopped answering. The bodies being read now
 * share a budget ({@link OpenAiServer.Builder#maxBufferedBodyBytes}); one that does not fit is
 * answered 429 {@code overloaded}, and a body that settles gives its bytes back.
 */
class BodyBudgetTest {
  private static final int MAX_BODY = 1_000;

  /** A chat body of exactly {@code size} bytes: the JSON, then spaces. */
  private static byte[] paddedChat(int size) {
    String json = Fixture.chat("Hello.").toString();
    return (json + " ".repeat(size - json.length())).getBytes(StandardCharsets.UTF_8);
  }

  private static String head(int length) {
    return RawConnection.post(
        "/v1/chat/completions", "Content-Type: application/json", "Content-Length: " + length);
  }

  private static void awaitBuffered(Fixture f, long bytes) throws InterruptedException {
    for (int i = 0; i < 500 && f.server.bufferedBodyBytes() != bytes; i++) {
      Thread.sleep(10);
    }
    assertThat(f.server.bufferedBodyBytes()).isEqualTo(bytes);
  }

  @Test
  void stalledBodies_holdingTheBudget_leaveTheNextOne429_untilTheyAreGone() throws Exception {
    try (Fixture f =
        new Fixture(
            null, b -> {}, b -> b.maxBodyBytes(MAX_BODY).maxBufferedBodyBytes(4 * MAX_BODY))) {
      List<RawConnection> stalled = new ArrayList<>();
      try {
        for (int i = 0; i < 2; i++) {
          RawConnection c = new RawConnection(f);
          stalled.add(c);
          c.send(head(MAX_BODY)).send(new byte[900]);
        }
        // Each body counts twice its bytes: 2 x 2 x 900 of the 4,000.
        awaitBuffered(f, 3_600);
        try (RawConnection next = new RawConnection(f)) {
          RawConnection.Response r = next.send(head(900)).send(paddedChat(900)).read();
          r.answer().error(429, "overloaded");
          assertThat(r.header("Retry-After")).hasValue("1");
          assertThat(r.header("Connection")).hasValue("close");
        }
      } finally {
        for (RawConnection c : stalled) {
          c.close();
        }
      }
      awaitBuffered(f, 0);
      try (RawConnection next = new RawConnection(f)) {
        assertThat(next.send(head(900)).send(paddedChat(900)).read().status()).isEqualTo(200);
      }
      awaitBuffered(f, 0);
    }
  }

  @Test
  void aBudgetBelowOneLargestBody_stillTakesOne() throws Exception {
    try (Fixture f =
            new Fixture(null, b -> {}, b -> b.maxBodyBytes(MAX_BODY).maxBufferedBodyBytes(1));
        RawConnection c = new RawConnection(f)) {
      assertThat(c.send(head(MAX_BODY)).send(paddedChat(MAX_BODY)).read().status()).isEqualTo(200);
    }
  }

  @Test
  void theBudget_mustBePositive() {
    try (Fixture f = new Fixture(null, b -> {}, b -> b.maxBodyBytes(MAX_BODY))) {
      OpenAiServer.Builder b = OpenAiServer.builder(f.steward);
      org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
          .isThrownBy(() -> b.maxBufferedBodyBytes(0))
          .withMessageContaining("maxBufferedBodyBytes");
    }
  }
}
