package org.meshjava.langchain4j;

import java.time.Instant;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.Jcp;
import org.meshjava.steward.Steward;

/** A chat model whose every chat presents a fresh grant of a new caller, issued to the steward. */
final class GrantedChatModel {
  private GrantedChatModel() {}

  /** A model over {@code steward}, granted 9 J valid for the hour around now. */
  static MeshChatModel over(Steward steward) throws Exception {
    SigningKey me = Jcp.newKey();
    Instant now = Instant.now();
    GrantPresenter presenter =
        GrantPresenter.of(
            me,
            Jcp.issueRoot(
                me, steward.identity(), 9_000_000, now.minusSeconds(60), now.plusSeconds(3600)));
    return MeshChatModel.builder(steward)
        .defaultRequestParameters(MeshChatRequestParameters.builder().grant(presenter).build())
        .build();
  }
}
