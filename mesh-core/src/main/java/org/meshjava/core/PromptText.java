package org.meshjava.core;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.meshjava.core.bytes.ByteValue;
import org.meshjava.core.internal.WellFormedText;

/**
 * The prompt as bytes, before any engine has tokenized it (§3.1): what {@code prompt_hash}
 * addresses. An application hands the steward a prompt text and the steward asks the engine it
 * routed to for the token payload ({@link ServingEngine#tokenizer()}), so a request id never
 * depends on which engine serves it. Prompts are equal when their bytes are; {@link #length()}, the
 * byte count, is the token count a request declares when it has no better one. Immutable; the bytes
 * are copied in and out.
 */
public final class PromptText extends ByteValue {

  private PromptText(byte[] bytes) {
    super(bytes);
  }

  /** The prompt of exactly these bytes. */
  public static PromptText of(byte[] bytes) {
    return new PromptText(Objects.requireNonNull(bytes, "bytes").clone());
  }

  /**
   * The prompt of {@code text} in UTF-8.
   *
   * @throws IllegalArgumentException if the text holds an unpaired surrogate, which has no UTF-8
   *     form (a replacement would make the hash address other bytes than the caller meant)
   */
  public static PromptText of(String text) {
    Objects.requireNonNull(text, "text");
    if (WellFormedText.unpairedSurrogate(text) >= 0) {
      throw new IllegalArgumentException("the prompt text holds an unpaired surrogate");
    }
    // Exact: an unpaired surrogate is the one thing getBytes would replace.
    return new PromptText(text.getBytes(StandardCharsets.UTF_8));
  }

  /** The request's {@code prompt_hash}: the content id of the bytes. */
  public ContentId hash() {
    return ContentId.ofBytes(unsharedBytes());
  }

  @Override
  public String toString() {
    return "PromptText[" + length() + " bytes, " + hash() + "]";
  }
}
