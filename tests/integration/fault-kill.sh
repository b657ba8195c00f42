#!/bin/bash
# fault-kill: placeholder until written
