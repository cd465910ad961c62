#!/bin/sh
# Managed by Keel: Patroni callback that keeps the {{ cluster }} VIP on the leader (clusters without HAProxy).
# Patroni calls it as: vip-callback.sh ACTION ROLE SCOPE; root's keel-vip moves the address.
case "$1:$2" in
    on_stop:*) sudo -n {{ helper }} down ;;
    *:primary|*:master|*:promoted) sudo -n {{ helper }} up ;;
    *) sudo -n {{ helper }} down ;;
esac
exit 0
