package org.meshjava.journal;

import org.meshjava.core.ContentId;

/**
 * A receipt the journal recorded ({@code Sealed}): where a replay or a snapshot finds the receipt
 * chain's head.
 *
 * @param sequence its chain sequence
 * @param envelopeId its envelope's content id
 */
public record RecordedReceipt(long sequence, ContentId envelopeId) {}
