/**
 * The weights digest of §3.6: a content address for the weights a backend loads from a model
 * directory, over the files its forward pass reads.
 *
 * <p>{@link org.meshjava.core.weights.ModelDirectory} finds those files and hashes every byte of
 * each, streaming; {@link org.meshjava.core.weights.WeightsDigest} is the encoding the digest is
 * taken over. The exact bytes are in SPEC.md (section "Weights digest").
 */
package org.meshjava.core.weights;
