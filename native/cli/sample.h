/* sample.h - `tokcore sample` (sample.c). */
#ifndef TOKCORE_SAMPLE_H
#define TOKCORE_SAMPLE_H

/* argv[1] is "sample". Returns the exit status (0 ok, 1 failure, 2 usage). */
int tokcore_sample_main(int argc, char **argv);

#endif
