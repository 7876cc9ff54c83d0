package org.meshjava.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.NonRetriableException;
import dev.langchain4j.exception.RetriableException;
import dev.langchain4j.model.chat.request.ChatRequest;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Fidelity;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.journal.JournalException;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.Steward;
import org.meshjava.steward.StewardClosedException;

/**
 * A {@code NOT_RECORDED} refusal is retried by LangChain4j only where a resend may be served, the
 * rule the HTTP binding's {@code x-should-retry: false} follows (SPEC.md 70, "Automatic retries"):
 * a failed journal refuses every resend until its steward is restarted, and a granted chat refused
 * after its grant was decided wants the journal seen to first. A steward closed before the chat was
 * decided, or a journal closed under an ungranted chat, leaves the resend to the caller.
 */
class NotRecordedRetryTest {

  private static ServeException notRecorded(JournalException.Reason journal) {
    return new ServeException(
        ServeException.Reason.NOT_RECORDED,
        "cannot record the serve",
        new JournalException(journal, "journal t: write failed", null));
  }

  /** How many times LangChain4j's own retry loop calls a chat that throws {@code refusal}. */
  private static int attempts(RuntimeException refusal) {
    RetryLoop.Ended ended =
        RetryLoop.run(
            () -> {
              throw refusal;
            });
    assertThat(ended.thrown()).isSameAs(refusal);
    return ended.calls();
  }

  @Test
  void aFailedJournal_isNotRetried_grantedOrNot() {
    for (boolean granted : new boolean[] {false, true}) {
      RuntimeException e = MeshRefusal.of(notRecorded(JournalException.Reason.IO), granted);

      assertThat(e)
          .as("granted %s", granted)
          .isInstanceOf(MeshNotRecordedException.class)
          .isInstanceOf(NonRetriableException.class);
      assertThat(((MeshRefusal) e).reason()).isEqualTo(ServeException.Reason.NOT_RECORDED);
      assertThat(attempts(e)).as("granted %s", granted).isEqualTo(1);
    }
  }

  @Test
  void aGrantedChatNotRecordedAfterItsGrantWasDecided_isNotRetried() {
    RuntimeException e = MeshRefusal.of(notRecorded(JournalException.Reason.CLOSED), true);

    assertThat(e).isInstanceOf(MeshNotRecordedException.class);
    assertThat(attempts(e)).isEqualTo(1);
  }

  @Test
  void anUngrantedChatWhoseJournalClosedWithItsSteward_isLeftRetriable() {
    RuntimeException e = MeshRefusal.of(notRecorded(JournalException.Reason.CLOSED), false);

    assertThat(e)
        .isInstanceOf(MeshServeFailedException.class)
        .isInstanceOf(RetriableException.class);
  }

  @Test
  void aGrantedChatOnAClosedSteward_isLeftRetriable_itsPresentationUnspent() throws Exception {
    Steward steward =
        Steward.ephemeral()
            .backend(ReferenceEngine.builder().name("small").fidelity(Fidelity.F2).build())
            .build();
    MeshChatModel model = GrantedChatModel.over(steward);
    steward.close();

    assertThatThrownBy(
            () -> model.chat(ChatRequest.builder().messages(UserMessage.from("hi")).build()))
        .isInstanceOf(MeshServeFailedException.class)
        .isInstanceOf(RetriableException.class)
        .hasCauseInstanceOf(StewardClosedException.class);
  }
}
