package org.meshjava.receipt;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.Energy;
import org.meshjava.core.Fidelity;
import org.meshjava.core.OutcomeCounters;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.identity.DidKey;
import org.meshjava.receipt.internal.SignedCoreSink;
import org.meshjava.receipt.internal.SignedCores;

/**
 * A mesh/1 receipt (§6.1): what was asked, who served it and how, what it cost, and where it stands
 * in the steward's chain. Immutable; every coupling rule is checked at construction, so a receipt
 * that exists is one that may be sealed. It is built from small parts, each validated on its own:
 * the outcome counters exactly as the engine reported them ({@link OutcomeCounters}), the grant
 * debited ({@link GrantDebit}, so a breach without a grant cannot be said), the output ({@link
 * ReceiptOutput}: a generation's commitment or a decision's shape, never both) and the chain
 * position ({@link ChainPosition}).
 *
 * <p>The efficiency figures ({@code uj_per_accepted_token}, {@code uj_per_decision}, {@code
 * uj_per_option_scored}) are derived, never stored, so they cannot disagree with the energy they
 * are computed from. Integer µJ, floor division (§6.2).
 *
 * <p>{@link SignedCore} turns a receipt into the canonical CBOR map that JCR-1 signs and back.
 *
 * @param requestId the request's content id
 * @param grant the leaf grant debited and any breach, when the serve rode on a grant
 * @param backend the backend that served
 * @param recipe the composed model's name
 * @param weights the bound weights and precision, when the backend names them (§3.6)
 * @param route the router's one-line justification (§4)
 * @param counters the six outcome counters (u32 each)
 * @param fidelityFloor the floor the request demanded
 * @param fidelityReport advertised and delivered fidelity, when the backend reported a delivered
 *     level (§3.2.1)
 * @param fidelityMet whether the served backend met the floor
 * @param energy the metered figure with its provenance (§3.3)
 * @param output a generation's output commitment, or what a typed decision answered (§3.6, §6.4)
 * @param position where the receipt stands in the steward's chain (§6.3)
 * @param nonce per-receipt nonce
 * @param steward the sealing identity, the COSE kid
 */
public record MeshReceipt(
    ContentId requestId,
    Optional<GrantDebit> grant,
    String backend,
    String recipe,
    Optional<WeightsBinding> weights,
    String route,
    OutcomeCounters counters,
    Fidelity fidelityFloor,
    Optional<FidelityReport> fidelityReport,
    boolean fidelityMet,
    Energy energy,
    ReceiptOutput output,
    ChainPosition position,
    Nonce nonce,
    DidKey steward) {

  /** The profile string every receipt carries under {@code mesh_receipt}. */
  public static final String PROFILE = "mesh/1";

  /**
   * Validates every field and coupling.
   *
   * @throws NullPointerException if a component is null (absent optional parts are {@link
   *     Optional#empty()})
   * @throws IllegalArgumentException if a name is empty or more than one line, or {@code
   *     fidelityMet} contradicts the reported delivered level
   */
  public MeshReceipt {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(grant, "grant");
    requireName("backend", backend);
    requireName("recipe", recipe);
    Objects.requireNonNull(weights, "weights");
    requireName("route", route);
    Objects.requireNonNull(counters, "counters");
    Objects.requireNonNull(fidelityFloor, "fidelityFloor");
    Objects.requireNonNull(fidelityReport, "fidelityReport");
    Objects.requireNonNull(energy, "energy");
    Objects.requireNonNull(output, "output");
    Objects.requireNonNull(position, "position");
    Objects.requireNonNull(nonce, "nonce");
    Objects.requireNonNull(steward, "steward");
    if (fidelityReport.isPresent()
        && fidelityMet != fidelityReport.get().delivered().meets(fidelityFloor)) {
      throw new IllegalArgumentException(
          "fidelity_met must follow the delivered level when one is reported (§3.2.1)");
    }
    // Not refused here: advertised below the floor, or fidelity_met 0 without the pair. The steward
    // seals the rating the router admitted on (steward.Sealer), which meets the floor (§4), so it
    // seals neither shape; but builds that read the engine's fidelity() after the work sealed both
    // for an engine whose rating dropped mid-serve, and their journals and receipts must still
    // decode and verify.
  }

  /**
   * The leaf grant debited ({@code grant_id}), when the serve rode on a grant.
   *
   * @return the grant's content id, or empty for an ungranted serve
   */
  public Optional<ContentId> grantId() {
    return grant.map(GrantDebit::grantId);
  }

  /**
   * How the debit broke the grant ({@code grant_breach}), if it did (§2).
   *
   * @return the breach, or empty when the debit kept within the grant
   */
  public Optional<DenialLabel> grantBreach() {
    return grant.flatMap(GrantDebit::breach);
  }

  /**
   * What a typed decision answered (§3.6); absent for a generation.
   *
   * @return the decision's shape, or empty for a generation
   */
  public Optional<DecisionShape> decision() {
    return output instanceof ReceiptOutput.Decision(DecisionShape shape, _)
        ? Optional.of(shape)
        : Optional.empty();
  }

  /**
   * The commitment to a generation's output (§6.4); absent for a decision, and when none made.
   *
   * @return the commitment, or empty
   */
  public Optional<ContentId> outputCommitment() {
    return output instanceof ReceiptOutput.Generation(Optional<ContentId> commitment)
        ? commitment
        : Optional.empty();
  }

  /**
   * Position in the steward's chain, from 0 (§6.3).
   *
   * @return the sequence number
   */
  public long sequence() {
    return position.sequence();
  }

  /**
   * Content id of the previous envelope; absent exactly at sequence 0 (§6.3).
   *
   * @return the previous envelope's content id, or empty at sequence 0
   */
  public Optional<ContentId> prev() {
    return position.prev();
  }

  /**
   * Whether this receipt is for a typed decision.
   *
   * @return whether {@link #decision()} is present
   */
  public boolean isDecision() {
    return output instanceof ReceiptOutput.Decision;
  }

  /**
   * The wedge metric of a generation (§6.2): µJ per accepted token, floor division. Absent for a
   * decision and when no token was accepted.
   *
   * @return µJ per accepted token, or empty
   */
  public OptionalLong ujPerAcceptedToken() {
    if (isDecision() || counters.tokensAccepted() == 0) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(energy.uj() / counters.tokensAccepted());
  }

  /**
   * The wedge metric of a decision (§3.6): µJ per answered question.
   *
   * @return µJ per answered question, or empty for a generation
   */
  public OptionalLong ujPerDecision() {
    return output instanceof ReceiptOutput.Decision(DecisionShape shape, _)
        ? OptionalLong.of(energy.uj() / shape.questions())
        : OptionalLong.empty();
  }

  /**
   * µJ per scored option of a decision (§3.6); absent for a generation, and for a decision whose
   * receipt was sealed without it (a SHOULD of §3.6, which mesh-java always meets when it seals).
   *
   * @return µJ per scored option, or empty
   */
  public OptionalLong ujPerOptionScored() {
    return output instanceof ReceiptOutput.Decision(DecisionShape shape, boolean perOption)
            && perOption
        ? OptionalLong.of(energy.uj() / shape.optionsScored())
        : OptionalLong.empty();
  }

  static {
    SignedCores.install(
        new SignedCores.Access() {
          @Override
          public CborMap encode(MeshReceipt receipt) {
            return SignedCore.encode(receipt);
          }

          @Override
          public CborMap of(SealedReceipt sealed) {
            return sealed.signedCore();
          }

          @Override
          public MeshReceipt decode(CborValue core) throws ReceiptException {
            return SignedCore.decode(core);
          }

          @Override
          public <X extends Exception> void write(SealedReceipt sealed, SignedCoreSink<X> sink)
              throws X {
            sealed.writeSignedCore(sink);
          }
        });
  }

  /**
   * Returns this receipt's signed core in canonical CBOR (§6.1): the bytes JCR-1 signs, which are
   * the payload of the receipt's envelope.
   *
   * @return a fresh array of the signed core's bytes
   */
  public byte[] encodeSignedCore() {
    return SignedCoreBytes.of(this);
  }

  /** The signed core as a CBOR map, for this package's sealing and its tests. */
  CborMap toSignedCore() {
    return SignedCore.encode(this);
  }

  /**
   * Reads a receipt back from its signed core (the inverse of {@link #toSignedCore}), with every
   * rule {@link Jcr1#open} applies to a payload.
   *
   * @throws ReceiptException if {@code core} is not the signed core of a valid receipt
   */
  static MeshReceipt fromSignedCore(CborValue core) throws ReceiptException {
    return SignedCore.decode(core);
  }

  /**
   * Returns a builder pre-filled with this receipt's fields.
   *
   * @return a new builder holding this receipt's fields
   */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Returns an empty builder.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Refuses a {@code value} of {@code field} that is empty or more than one line. */
  static void requireName(String field, String value) {
    Objects.requireNonNull(value, field);
    // indexOf, not a stream over the characters: every sealed receipt checks three names, and
    // the stream (a pipeline and a lambda per call) was over 1% of a proxied serve's CPU samples.
    if (value.isEmpty() || value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
      throw new IllegalArgumentException(field + " must be a non-empty single line");
    }
  }

  /**
   * Collects a receipt's fields. The chain fields ({@code sequence}, {@code prev}) are usually left
   * for the steward's receipt log to stamp. Not thread-safe.
   */
  public static final class Builder {
    private ContentId requestId;
    private Optional<ContentId> grantId = Optional.empty();
    private String backend;
    private String recipe;
    private Optional<WeightsBinding> weights = Optional.empty();
    private String route;
    // A receipt whose counters were never set says the engine reported zeros.
    private OutcomeCounters counters = new OutcomeCounters(0, 0, 0, 0, 0, 0);
    private Fidelity fidelityFloor;
    private Optional<FidelityReport> fidelityReport = Optional.empty();
    private boolean fidelityMet;
    private Energy energy;
    private Optional<DecisionShape> decision = Optional.empty();
    private boolean perOptionFigure = true;
    private Optional<DenialLabel> grantBreach = Optional.empty();
    private Optional<ContentId> outputCommitment = Optional.empty();
    private long sequence;
    private Optional<ContentId> prev = Optional.empty();
    private Nonce nonce;
    private DidKey steward;

    @SuppressWarnings("NullAway.Init") // required parts are checked in build()
    private Builder() {}

    private Builder(MeshReceipt r) {
      requestId = r.requestId;
      grantId = r.grantId();
      backend = r.backend;
      recipe = r.recipe;
      weights = r.weights;
      route = r.route;
      counters = r.counters;
      fidelityFloor = r.fidelityFloor;
      fidelityReport = r.fidelityReport;
      fidelityMet = r.fidelityMet;
      energy = r.energy;
      decision = r.decision();
      perOptionFigure = !(r.output instanceof ReceiptOutput.Decision d) || d.perOptionFigure();
      grantBreach = r.grantBreach();
      outputCommitment = r.outputCommitment();
      sequence = r.sequence();
      prev = r.prev();
      nonce = r.nonce;
      steward = r.steward;
    }

    /**
     * Sets {@code request_id}.
     *
     * @param v the value
     * @return this builder
     */
    public Builder requestId(ContentId v) {
      requestId = v;
      return this;
    }

    /**
     * Sets {@code grant_id}.
     *
     * @param v the value
     * @return this builder
     */
    public Builder grantId(Optional<ContentId> v) {
      grantId = v;
      return this;
    }

    /**
     * Sets {@code backend}.
     *
     * @param v the value
     * @return this builder
     */
    public Builder backend(String v) {
      backend = v;
      return this;
    }

    /**
     * Sets {@code recipe}.
     *
     * @param v the value
     * @return this builder
     */
    public Builder recipe(String v) {
      recipe = v;
      return this;
    }

    /**
     * Sets {@code weights_digest} and {@code precision} together.
     *
     * @param v the value
     * @return this builder
     */
    public Builder weights(Optional<WeightsBinding> v) {
      weights = v;
      return this;
    }

    /**
     * Sets {@code route}.
     *
     * @param v the value
     * @return this builder
     */
    public Builder route(String v) {
      route = v;
      return this;
    }

    /**
     * Sets the six outcome counters, as the engine reported them.
     *
     * @param v the value
     * @return this builder
     */
    public Builder counters(OutcomeCounters v) {
      counters = Objects.requireNonNull(v, "counters");
      return this;
    }

    /**
     * Sets {@code fidelity_floor}.
     *
     * @param v the value
     * @return this builder
     */
    public Builder fidelityFloor(Fidelity v) {
      fidelityFloor = v;
      return this;
    }

    /**
     * Sets {@code fidelity_advertised} and {@code fidelity_delivered} together.
     *
     * @param v the value
     * @return this builder
     */
    public Builder fidelityReport(Optional<FidelityReport> v) {
      fidelityReport = v;
      return this;
    }

    /**
     * Sets {@code fidelity_met}.
     *
     * @param v the value
     * @return this builder
     */
    public Builder fidelityMet(boolean v) {
      fidelityMet = v;
      return this;
    }

    /**
     * Sets the energy figure.
     *
     * @param v the value
     * @return this builder
     */
    public Builder energy(Energy v) {
      energy = v;
      return this;
    }

    /**
     * Sets whether a decision's receipt carries {@code uj_per_option_scored} (default: it does).
     * Only a receipt decoded from a core sealed without it clears this; it has no effect on a
     * generation.
     *
     * @param v whether the figure is carried
     * @return this builder
     */
    public Builder perOptionFigure(boolean v) {
      perOptionFigure = v;
      return this;
    }

    /**
     * Sets the decision fields.
     *
     * @param v the value
     * @return this builder
     */
    public Builder decision(Optional<DecisionShape> v) {
      decision = v;
      return this;
    }

    /**
     * Sets {@code grant_breach}; it needs a {@link #grantId}.
     *
     * @param v the value
     * @return this builder
     */
    public Builder grantBreach(Optional<DenialLabel> v) {
      grantBreach = v;
      return this;
    }

    /**
     * Sets {@code output_commitment}.
     *
     * @param v the value
     * @return this builder
     */
    public Builder outputCommitment(Optional<ContentId> v) {
      outputCommitment = v;
      return this;
    }

    /**
     * Sets {@code sequence} and {@code prev}.
     *
     * @param sequence the position in the chain, from 0
     * @param prev the previous envelope's content id; empty exactly at sequence 0
     * @return this builder
     */
    public Builder chain(long sequence, Optional<ContentId> prev) {
      this.sequence = sequence;
      this.prev = prev;
      return this;
    }

    /**
     * Sets {@code nonce}.
     *
     * @param v the value
     * @return this builder
     */
    public Builder nonce(Nonce v) {
      nonce = v;
      return this;
    }

    /**
     * Sets {@code steward}.
     *
     * @param v the value
     * @return this builder
     */
    public Builder steward(DidKey v) {
      steward = v;
      return this;
    }

    /**
     * Builds the receipt.
     *
     * @return the receipt, every coupling checked
     * @throws NullPointerException if a required field was never set
     * @throws IllegalArgumentException if a field or a coupling breaks a rule of §6.1
     */
    public MeshReceipt build() {
      Objects.requireNonNull(grantId, "grantId");
      Objects.requireNonNull(grantBreach, "grantBreach");
      Objects.requireNonNull(decision, "decision");
      Objects.requireNonNull(outputCommitment, "outputCommitment");
      if (decision.isPresent() && outputCommitment.isPresent()) {
        throw new IllegalArgumentException("a typed decision carries no output commitment (§6.4)");
      }
      if (grantBreach.isPresent() && grantId.isEmpty()) {
        throw new IllegalArgumentException("grant_breach needs a grant_id");
      }
      return new MeshReceipt(
          requestId,
          grantId.map(g -> new GrantDebit(g, grantBreach)),
          backend,
          recipe,
          weights,
          route,
          counters,
          fidelityFloor,
          fidelityReport,
          fidelityMet,
          energy,
          decision.isPresent()
              ? new ReceiptOutput.Decision(decision.get(), perOptionFigure)
              : new ReceiptOutput.Generation(outputCommitment),
          new ChainPosition(sequence, prev),
          nonce,
          steward);
    }
  }
}
