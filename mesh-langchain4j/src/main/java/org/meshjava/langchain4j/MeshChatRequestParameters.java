package org.meshjava.langchain4j;

import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.DefaultChatRequestParameters;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.Fidelity;

/**
 * The request parameters of a chat served by a steward: LangChain4j's common ones, and the request
 * fields a mesh request adds (§2.3): its joule ceiling, its fidelity floor, and the grant it rides
 * on. Set on a model as its defaults, or on one {@code ChatRequest}; a call's values win, field by
 * field.
 *
 * <p>Of the common parameters, {@code modelName} names a backend or recipe to route to and {@code
 * maxOutputTokens} is the output ceiling. Sampling settings ({@code temperature}, {@code topP},
 * {@code topK}, penalties) are ignored: how a backend samples is its own, and its recipe in the
 * receipt says so. Stop sequences, tools and JSON response formats are refused with {@code
 * UnsupportedFeatureException}.
 *
 * <p>Immutable and thread-safe.
 */
public final class MeshChatRequestParameters extends DefaultChatRequestParameters {
  /**
   * A chat's joule ceiling when nothing sets one: 1 J, the default of {@code mesh serve} for
   * ungranted requests.
   */
  public static final long DEFAULT_JOULE_CEILING_UJ = 1_000_000;

  private final @Nullable GrantPresenter grant;
  private final @Nullable Long jouleCeilingUj;
  private final @Nullable Fidelity fidelityFloor;

  private MeshChatRequestParameters(Builder b) {
    super(b);
    this.grant = b.grant;
    this.jouleCeilingUj = b.jouleCeilingUj;
    this.fidelityFloor = b.fidelityFloor;
  }

  /** The grant the chat rides on; none: an ungranted serve. */
  public Optional<GrantPresenter> grant() {
    return Optional.ofNullable(grant);
  }

  /** The request's joule ceiling in µJ, if set. */
  public OptionalLong jouleCeilingUj() {
    return jouleCeilingUj == null ? OptionalLong.empty() : OptionalLong.of(jouleCeilingUj);
  }

  /** The lowest fidelity the caller accepts, if set. */
  public Optional<Fidelity> fidelityFloor() {
    return Optional.ofNullable(fidelityFloor);
  }

  @Override
  public ChatRequestParameters overrideWith(ChatRequestParameters that) {
    return builder().overrideWith(this).overrideWith(that).build();
  }

  @Override
  public ChatRequestParameters defaultedBy(ChatRequestParameters that) {
    return builder().overrideWith(that).overrideWith(this).build();
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof MeshChatRequestParameters m
        && super.equals(o)
        && Objects.equals(grant, m.grant)
        && Objects.equals(jouleCeilingUj, m.jouleCeilingUj)
        && fidelityFloor == m.fidelityFloor;
  }

  @Override
  public int hashCode() {
    return Objects.hash(super.hashCode(), grant, jouleCeilingUj, fidelityFloor);
  }

  @Override
  public String toString() {
    return "MeshChatRequestParameters{"
        + super.toString()
        + ", grant="
        + grant
        + ", jouleCeilingUj="
        + jouleCeilingUj
        + ", fidelityFloor="
        + fidelityFloor
        + "}";
  }

  /** Starts empty parameters. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds parameters; every field is optional. */
  public static final class Builder extends DefaultChatRequestParameters.Builder<Builder> {
    private @Nullable GrantPresenter grant;
    private @Nullable Long jouleCeilingUj;
    private @Nullable Fidelity fidelityFloor;

    /** Starts empty; see {@link MeshChatRequestParameters#builder()}. */
    public Builder() {}

    /** Copies every field {@code parameters} sets, the mesh fields too when it has them. */
    @Override
    public Builder overrideWith(@Nullable ChatRequestParameters parameters) {
      if (parameters == null) {
        return this;
      }
      super.overrideWith(parameters);
      if (parameters instanceof MeshChatRequestParameters m) {
        if (m.grant != null) {
          grant = m.grant;
        }
        if (m.jouleCeilingUj != null) {
          jouleCeilingUj = m.jouleCeilingUj;
        }
        if (m.fidelityFloor != null) {
          fidelityFloor = m.fidelityFloor;
        }
      }
      return this;
    }

    /** The grant the chat rides on. */
    public Builder grant(GrantPresenter v) {
      this.grant = Objects.requireNonNull(v, "grant");
      return this;
    }

    /**
     * The request's joule ceiling in µJ: the most the serve may cost (a granted serve reserves it
     * on the grant until settled).
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder jouleCeilingUj(long v) {
      if (v < 0) {
        throw new IllegalArgumentException("jouleCeilingUj must be non-negative: " + v);
      }
      this.jouleCeilingUj = v;
      return this;
    }

    /** The lowest fidelity the caller accepts (§3.2). */
    public Builder fidelityFloor(Fidelity v) {
      this.fidelityFloor = Objects.requireNonNull(v, "fidelityFloor");
      return this;
    }

    @Override
    public MeshChatRequestParameters build() {
      return new MeshChatRequestParameters(this);
    }
  }
}
