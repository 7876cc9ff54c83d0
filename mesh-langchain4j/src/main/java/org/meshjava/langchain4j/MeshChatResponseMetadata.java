package org.meshjava.langchain4j;

import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.ChatResponseMetadata;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.SealedReceipt;

/**
 * The metadata of an answer a steward served: LangChain4j's common fields (the request id as {@code
 * id}, the serving backend as {@code modelName}, token usage, finish reason) and the sealed receipt
 * (§6) with its COSE_Sign1 envelope, which anyone holding the steward's {@code did:key} can verify.
 *
 * <p>Immutable and thread-safe.
 */
public final class MeshChatResponseMetadata extends ChatResponseMetadata {
  private final SealedReceipt sealed;

  private MeshChatResponseMetadata(Builder b) {
    super(b);
    this.sealed = Objects.requireNonNull(b.sealed, "sealed");
  }

  /**
   * The metadata of {@code response}.
   *
   * @throws IllegalArgumentException if no steward served it (its metadata carries no receipt)
   */
  public static MeshChatResponseMetadata of(ChatResponse response) {
    if (response.metadata() instanceof MeshChatResponseMetadata m) {
      return m;
    }
    throw new IllegalArgumentException(
        "the response was not served by a steward: its metadata carries no receipt");
  }

  /** The receipt and its envelope. */
  public SealedReceipt sealed() {
    return sealed;
  }

  /** The receipt. */
  public MeshReceipt receipt() {
    return sealed.receipt();
  }

  /** The receipt's signed envelope. */
  public Envelope envelope() {
    return sealed.envelope();
  }

  @Override
  public Builder toBuilder() {
    Builder b = builder();
    toBuilder(b);
    return b.sealed(sealed);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof MeshChatResponseMetadata m && super.equals(o) && sealed.equals(m.sealed);
  }

  @Override
  public int hashCode() {
    return Objects.hash(super.hashCode(), sealed);
  }

  @Override
  public String toString() {
    return "MeshChatResponseMetadata{" + super.toString() + ", receipt=" + receipt() + "}";
  }

  /** Starts a builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds the metadata; {@link #sealed} is required. */
  public static final class Builder extends ChatResponseMetadata.Builder<Builder> {
    private @Nullable SealedReceipt sealed;

    /** Starts empty; see {@link MeshChatResponseMetadata#builder()}. */
    public Builder() {}

    /** The receipt and its envelope. */
    public Builder sealed(SealedReceipt v) {
      this.sealed = Objects.requireNonNull(v, "sealed");
      return this;
    }

    @Override
    public MeshChatResponseMetadata build() {
      return new MeshChatResponseMetadata(this);
    }
  }
}
