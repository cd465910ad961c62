#!/bin/sh
# Managed by Keel: Patroni callback that keeps the {{ cluster }} VIP on the leader (clusters without HAProxy).
# Patroni calls it as: vip-callback.sh ACTION ROLE SCOPE.
vip={{ vip }}
prefix={{ prefix }}
interface={{ interface }}
holds() { ip -4 -o addr show dev "$interface" | grep -q " inet $vip/"; }
case "$1:$2" in
    on_stop:*)
        holds && ip addr del "$vip/$prefix" dev "$interface" ;;
    *:primary|*:master|*:promoted)
        holds || { ip addr add "$vip/$prefix" dev "$interface" && arping -q -U -c 3 -I "$interface" "$vip"; } ;;
    *)
        holds && ip addr del "$vip/$prefix" dev "$interface" ;;
esac
exit 0
