package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.meshjava.receipt.tlog.LogException;

/**
 * A transparency log whose tree can no longer be read (its snapshot file cut short under the
 * steward, SPEC.md §60.8) is the server's failure, not the request's: every log endpoint answers it
 * 503 {@code log_unreadable}, naming no parameter, and tells the SDKs not to resend before the
 * operator restarts the steward. The steward side is pinned by mesh-steward's {@code
 * LogSnapshotCutShortTest}.
 */
class LogUnreadableReplyTest {

  /** Regression: with no case of its own it fell to the default, 400 "unreadable" naming "seq". */
  @Test
  void anUnreadableLog_is503LogUnreadable_namingNoParameter_andNotWorthAResend() {
    LogException unreadable =
        new LogException(
            LogException.Reason.UNREADABLE,
            "the transparency log cannot be read: the snapshot file its tree is read from was cut"
                + " short; restart");

    Reply.Json reply = LogEndpoints.refusal(unreadable, "seq");

    assertThat(reply.status()).isEqualTo(503);
    assertThat(reply.retry()).isEqualTo(Reply.Retry.FUTILE);
    assertThat(reply.body().at("/error/code").asText()).isEqualTo("log_unreadable");
    assertThat(reply.body().at("/error/type").asText()).isEqualTo("service_unavailable_error");
    assertThat(
            reply.body().at("/error/param").isNull()
                || reply.body().at("/error/param").isMissingNode())
        .isTrue();
    assertThat(reply.body().at("/error/message").asText()).contains("snapshot").contains("restart");
  }
}
