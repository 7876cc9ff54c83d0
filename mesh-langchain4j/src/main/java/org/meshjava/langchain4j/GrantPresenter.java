package org.meshjava.langchain4j;

import java.util.Objects;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.IssuanceException;
import org.meshjava.jcp.Presentation;

/**
 * Presents a grant for one chat (§2.1). A presentation signs the request's id, which depends on the
 * messages and settings of the chat, so it cannot be made before the chat is asked: the model
 * derives the request first and then asks this presenter to sign for it. Attach one per call with
 * {@link MeshChatRequestParameters.Builder#grant}, or as a model's default.
 */
@FunctionalInterface
public interface GrantPresenter {

  /**
   * A presentation of a grant for {@code request}.
   *
   * @throws IssuanceException if this presenter cannot present for it (not the leaf's issuer)
   */
  Presentation present(ServeRequest request) throws IssuanceException;

  /**
   * The presenter that signs for each request with {@code callerKey}, the key of {@code chain}'s
   * leaf issuer, and a fresh nonce. Its {@code toString} names the grant and the caller, never the
   * key.
   */
  static GrantPresenter of(SigningKey callerKey, GrantChain chain) {
    Objects.requireNonNull(callerKey, "callerKey");
    Objects.requireNonNull(chain, "chain");
    return new GrantPresenter() {
      @Override
      public Presentation present(ServeRequest request) throws IssuanceException {
        return Presentation.sign(callerKey, chain, request.id());
      }

      @Override
      public String toString() {
        return "GrantPresenter[grant="
            + chain.leaf().id()
            + ", caller="
            + callerKey.verificationKey()
            + "]";
      }
    };
  }
}
