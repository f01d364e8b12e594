/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * An SFrame table for the C tests: encoded by the test encoder
 * (scripts/uwind/sframe_enc.h) and set up with uw_sframe_init().
 * Header-only; include tap.h first (diag()).
 */
#ifndef UWIND_SELFTESTS_SFETABLE_H
#define UWIND_SELFTESTS_SFETABLE_H

#include <stdbool.h>
#include <uwind/uwind.h>
#include "../../scripts/uwind/sframe_enc.h"

/*
 * Encode st into *p (*len bytes, the layout in *lay: the caller frees
 * both) and set sf up over it at st->addr.  false, with a diagnostic,
 * when either fails.
 */
static inline bool uwt_sframe_build(const struct sfe_table *st, uint8_t **p,
				    size_t *len, struct sfe_layout *lay,
				    struct uw_sframe *sf)
{
	struct uw_span span;
	char err[128];
	int e;

	if (sfe_encode(st, p, len, lay, err, sizeof(err))) {
		diag("encoder: %s", err);
		return false;
	}
	span.data = *p;
	span.size = *len;
	span.addr = st->addr;
	e = uw_sframe_init(sf, &span);
	if (e)
		diag("uw_sframe_init: %s", uw_strerror(e));
	return !e;
}

#endif /* UWIND_SELFTESTS_SFETABLE_H */
