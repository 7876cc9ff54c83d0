package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.Tokenizer;

/**
 * A backend whose tokenizer cannot decode its output: the steward decodes it before the serve is
 * debited or sealed, so the reply is the backend's failure (502, nothing sealed), never an HTTP 500
 * after a receipt was sealed and its grant debited for a reply the client did not get.
 */
class DecodeFailsBeforeTheSealTest {

  /** Encodes each byte as its value; cannot decode. */
  private static final Tokenizer UNDECODABLE =
      new Tokenizer() {
        @Override
        public String name() {
          return "undecodable";
        }

        @Override
        public TokenSequence encode(byte[] promptText) {
          int[] ids = new int[promptText.length];
          for (int i = 0; i < ids.length; i++) {
            ids[i] = promptText[i] & 0xFF;
          }
          return TokenSequence.of(ids);
        }

        @Override
        public String decode(TokenSequence output) {
          throw new IllegalArgumentException("not text");
        }
      };

  private final Fixture f =
      new Fixture(
          org.meshjava.core.crypto.SigningKey.generate(),
          b -> b.backend(Fixture.cheapBackend().tokenizer(UNDECODABLE).build()),
          s -> {});

  @AfterEach
  void close() {
    f.close();
  }

  /** Regression: 500 with receipt 0 sealed (the decode ran in the binding, after the seal). */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aReplyThatCannotBeDecoded_isTheBackendFailing_andSealsNothing(boolean stream) {
    ObjectNode body = Fixture.chat("Say hello.");
    body.put("stream", stream);

    Fixture.Answer a = f.post("/v1/chat/completions", body);

    assertThat(a.status()).as(a.body()).isEqualTo(502);
    assertThat(a.body()).contains("could not decode its output").doesNotContain("\tat ");
    assertThat(f.steward.head().nextSequence()).isZero();
  }
}
