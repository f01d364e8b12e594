/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
#ifndef SFRAME_SAMPLES_H
#define SFRAME_SAMPLES_H

int leaf_add(int a, int b);
int big_array(int n);
int medium_array(int n);
int use_alloca(int n);
int recurse(int n);
int call_all(int n);
int call_many(int x);

#endif /* SFRAME_SAMPLES_H */
